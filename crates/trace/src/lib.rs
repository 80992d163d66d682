//! warpforge-trace (under construction).
