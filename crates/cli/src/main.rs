fn main() {
    println!("barrierlab {}", env!("CARGO_PKG_VERSION"));
}
