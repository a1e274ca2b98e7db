mod aligned;
mod alternating;
mod options;
mod support;
mod tracker;
mod unaligned;
