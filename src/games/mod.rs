//! The games cutoff knows, one module each.

pub mod connect4;
pub mod mnk;
