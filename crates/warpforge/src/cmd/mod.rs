//! One module per subcommand.

pub mod bench;
pub mod bundle;
pub mod characterize;
pub mod compare;
pub mod config;
pub mod experiment;
pub mod heteropdp;
pub mod list;
pub mod observed;
pub mod predict;
pub mod ptx;
pub mod report;
pub mod run;
pub mod sweep;
pub mod threads;
pub mod trace;
