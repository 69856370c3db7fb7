//! Host package for the cross-crate tests and examples. Its documentation is
//! the README, so that the README's Rust blocks compile and run as doctests.
#![doc = include_str!("../README.md")]
