//! warpforge-models (under construction).
