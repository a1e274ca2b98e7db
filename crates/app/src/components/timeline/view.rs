//! The timeline's visible window on its shared time axis: a magnification and where the window
//! starts, both relative to the whole span, so they survive the span growing while following
//! the newest checkpoint. Display only (floats are fine here: nothing feeds the simulation).

use std::rc::Rc;

use yew::Reducible;

/// Deepest zoom: 1/64 of the span across the chart.
pub const MAX_ZOOM: f64 = 64.0;
/// One zoom step (buttons, keys, one wheel notch).
pub const ZOOM_STEP: f64 = 1.5;
/// One pan step, as a fraction of the visible window.
pub const PAN_STEP: f64 = 0.25;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// 1 = the whole span; 2 = half of it; …
    pub zoom: f64,
    /// Start of the window as a fraction of the span, in [0, 1 - 1/zoom].
    pub offset: f64,
}

impl Default for View {
    fn default() -> Self {
        View {
            zoom: 1.0,
            offset: 0.0,
        }
    }
}

/// What the toolbar, keys, wheel and drags ask of the view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ViewAction {
    /// Zoom by a factor, keeping the point at this fraction across the window in place.
    Zoom(f64, f64),
    /// Pan by this many windows (negative: towards the trigger).
    Pan(f64),
    /// A drag: `start` panned by `windows` (the drag's distance, in windows).
    DragFrom(View, f64),
    Reset,
}

impl View {
    fn clamped(zoom: f64, offset: f64) -> View {
        let zoom = if zoom.is_finite() {
            zoom.clamp(1.0, MAX_ZOOM)
        } else {
            1.0
        };
        let max = 1.0 - 1.0 / zoom;
        let offset = if offset.is_finite() {
            offset.clamp(0.0, max)
        } else {
            0.0
        };
        View { zoom, offset }
    }

    /// Width of the window as a fraction of the span.
    pub fn width(self) -> f64 {
        1.0 / self.zoom
    }

    pub fn apply(self, action: ViewAction) -> View {
        match action {
            ViewAction::Zoom(factor, anchor) => {
                let anchor = anchor.clamp(0.0, 1.0);
                let at = self.offset + anchor * self.width();
                let zoom = (self.zoom * factor).clamp(1.0, MAX_ZOOM);
                View::clamped(zoom, at - anchor / zoom)
            }
            ViewAction::Pan(windows) => {
                View::clamped(self.zoom, self.offset + windows * self.width())
            }
            ViewAction::DragFrom(start, windows) => {
                View::clamped(start.zoom, start.offset + windows * start.width())
            }
            ViewAction::Reset => View::default(),
        }
    }

    /// The visible range of a span, in the span's unit (µs after the trigger).
    pub fn range(self, span: u64) -> (u64, u64) {
        let span_f = span as f64;
        let t0 = (self.offset * span_f).round() as u64;
        let t1 = ((self.offset + self.width()) * span_f).round() as u64;
        (t0.min(span), t1.clamp(t0 + 1, span.max(t0 + 1)))
    }
}

impl Reducible for View {
    type Action = ViewAction;

    fn reduce(self: Rc<Self>, action: ViewAction) -> Rc<Self> {
        let next = self.apply(action);
        if next == *self {
            self
        } else {
            Rc::new(next)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_keeps_the_anchor_and_stays_inside_the_span() {
        let v = View::default().apply(ViewAction::Zoom(4.0, 0.5));
        assert_eq!(v.range(1_000), (375, 625));
        // Panning past the end stops at the end.
        let end = v.apply(ViewAction::Pan(10.0));
        assert_eq!(end.range(1_000), (750, 1_000));
        assert_eq!(end.apply(ViewAction::Pan(-10.0)).range(1_000), (0, 250));
        // Zooming out past 1× is the whole span again; in past the limit stops there.
        assert_eq!(v.apply(ViewAction::Zoom(0.01, 0.3)), View::default());
        assert_eq!(
            View::default().apply(ViewAction::Zoom(1e9, 0.0)).zoom,
            MAX_ZOOM
        );
        let dragged = View::default().apply(ViewAction::DragFrom(v, -0.5));
        assert_eq!(dragged.range(1_000), (250, 500));
        assert_eq!(dragged.apply(ViewAction::Reset), View::default());
    }
}
