//! Tools.
