mod aligned;
mod alternating;
mod announcement;
mod fast_path;
mod options;
mod support;
mod tracker;
mod unaligned;
