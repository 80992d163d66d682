//! warpforge-timing (under construction).
