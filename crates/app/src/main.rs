fn main() {
    barrierlab_app::start();
}
