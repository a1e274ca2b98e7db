mod aligned;
mod alternating;
mod announcement;
mod options;
mod support;
mod tracker;
mod unaligned;
