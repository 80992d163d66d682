//! Helpers shared by the host drivers: seeded input generation, output comparison.
