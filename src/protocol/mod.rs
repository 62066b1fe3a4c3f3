//! The protocol layer: UCI and UGI lines in, search events out as lines.

pub mod command;
pub mod controller;
pub mod format;
pub mod options;
pub mod session;

pub use controller::{run, BenchCommand};
