//! Reusable view pieces.

pub mod form;
pub mod layout;
