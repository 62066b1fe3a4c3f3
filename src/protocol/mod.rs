//! The protocol layer: input lines in, search events out as lines. A front end
//! ([`frontend`]) parses and formats one protocol on top of the shared reader and writer
//! threads, [`controller::Controller`] and [`session`]: the UCI family ([`uci`]; UCI, UGI and
//! UAI differ only in the words of [`dialect`]) and the Gomocup protocol ([`gomocup`]).

pub mod command;
pub mod controller;
pub mod dialect;
pub mod format;
pub mod frontend;
pub mod gomocup;
pub mod options;
pub mod session;
#[cfg(feature = "tune")]
pub mod tuning;
pub mod uci;

pub use controller::{run, run_protocol, BenchCommand};
pub use frontend::Protocol;
