//! Benchmark support (`scripts/bench.py` drives both): the seed data set and the ceiling
//! server.

pub mod ceiling;
pub mod seed;
mod surveys;
mod tools;
