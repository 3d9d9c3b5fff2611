//! Reusable view pieces.

pub mod bar_chart;
pub mod form;
pub mod fraud;
pub mod layout;
pub mod loaded;
pub mod session;
