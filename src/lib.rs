//! Host package for the cross-crate tests and examples; it has no code of its own.
