//! The protocol layer: UCI, UGI and UAI lines in, search events out as lines; the words
//! in which the dialects differ are in [`dialect`].

pub mod command;
pub mod controller;
pub mod dialect;
pub mod format;
pub mod options;
pub mod session;

pub use controller::{run, BenchCommand};
