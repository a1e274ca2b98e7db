//! Live heap bytes, for the soak test and the memory benchmark. The module's memory only grows:
//! its size is the peak so far plus the allocator's fragmentation, so a leak shows reliably only
//! in what is allocated now. `window.barrierlabHeap()` returns `{"live": …, "travel": …}`: the
//! bytes allocated now, and the share of them that the time-travel snapshots hold (it climbs and
//! halves as the list fills and is thinned, so the rest is what must stay flat).

use std::cell::Cell;

thread_local! {
    /// Bytes held by time-travel snapshots (kept by `travel::Bytes`). Per thread: the page and
    /// its worker are separate modules anyway, and native tests stay apart.
    static TRAVEL: Cell<usize> = const { Cell::new(0) };
}

/// Counts `n` more (or fewer) bytes of time-travel snapshots.
pub fn add_travel(n: usize) {
    TRAVEL.with(|t| t.set(t.get() + n));
}

pub fn sub_travel(n: usize) {
    TRAVEL.with(|t| t.set(t.get() - n));
}

/// Bytes of time-travel snapshots held on this thread now.
#[cfg(any(test, target_arch = "wasm32"))]
pub fn travel() -> usize {
    TRAVEL.with(Cell::get)
}

#[cfg(target_arch = "wasm32")]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The system allocator (dlmalloc in wasm), counting the bytes it hands out.
    pub struct Counting;

    pub static LIVE: AtomicUsize = AtomicUsize::new(0);

    // SAFETY: every call is forwarded unchanged to `System`; only the counter is added.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: forwarded unchanged.
            let p = unsafe { System.alloc(layout) };
            if !p.is_null() {
                LIVE.fetch_add(layout.size(), Ordering::Relaxed);
            }
            p
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: forwarded unchanged.
            let p = unsafe { System.alloc_zeroed(layout) };
            if !p.is_null() {
                LIVE.fetch_add(layout.size(), Ordering::Relaxed);
            }
            p
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            // SAFETY: forwarded unchanged.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: forwarded unchanged.
            let p = unsafe { System.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                LIVE.fetch_add(new_size, Ordering::Relaxed);
                LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            }
            p
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;
}

/// Installs `window.barrierlabHeap`: `{"live": bytes allocated now, "travel": bytes of
/// time-travel snapshots}` as JSON text.
#[cfg(target_arch = "wasm32")]
pub fn install(window: &web_sys::Window) {
    use std::sync::atomic::Ordering;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let f = Closure::<dyn Fn() -> String>::new(|| {
        let live = counting::LIVE.load(Ordering::Relaxed);
        serde_json::json!({ "live": live, "travel": travel() }).to_string()
    });
    let _ = js_sys::Reflect::set(window, &"barrierlabHeap".into(), f.as_ref().unchecked_ref());
    // The page keeps it for its lifetime.
    f.forget();
}
