//! Protocol layer.
