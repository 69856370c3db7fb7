//! Derive macro shell; the derive arrives with its own issue.
