//! warpforge-runtime (under construction).
