//! The protocol layer: input lines in, search events out as lines. Layered without a
//! circle, from the bottom: the protocol's words and values ([`dialect`], [`command`],
//! [`format`](mod@format), [`options`]), one game's [`session`] and the [`controller::Controller`]
//! every front end shares; the front ends on top of them ([`frontend`] says what one is):
//! the UCI family ([`uci`]; UCI, UGI and UAI differ only in the words of [`dialect`]) and
//! the Gomocup protocol ([`gomocup`]); and above them all [`engine_loop`], the loop that
//! chooses a front end and feeds it lines.

pub mod command;
pub mod controller;
pub mod dialect;
pub mod engine_loop;
pub mod format;
pub mod frontend;
pub mod genfens;
pub mod gomocup;
pub mod options;
pub mod session;
#[cfg(feature = "tune")]
pub mod tuning;
pub mod uci;
pub mod yixin;

pub use controller::BenchCommand;
pub use engine_loop::{run, run_protocol, Protocol};
