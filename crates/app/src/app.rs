//! The playground's root: the frame every panel lands in.

use yew::prelude::*;

use crate::components::{header::Header, panel::Panel, status_bar::StatusBar};

#[function_component(App)]
pub fn app() -> Html {
    html! {
        <div id="barrierlab" class="app">
            <Header />
            <main class="workspace">
                <Panel id="job-graph" title="Job graph" area="graph">
                    <p class="empty">{ "The running job's operators, channels and barriers appear here." }</p>
                </Panel>
                <Panel id="checkpoints" title="Checkpoints" area="checkpoints">
                    <nav class="tabs" aria-label="Checkpoint views">
                        { for ["Overview", "History", "Summary", "Configuration"].iter().map(|t| html! {
                            <span class="tab">{ *t }</span>
                        }) }
                    </nav>
                    <p class="empty">{ "No checkpoint has been triggered yet." }</p>
                </Panel>
                <Panel id="timeline" title="Timeline" area="timeline">
                    <p class="empty">{ "Per-subtask checkpoint phases: start delay, alignment, sync, async." }</p>
                </Panel>
                <Panel id="event-log" title="Event log" area="log">
                    <p class="empty">{ "The engine's trace, one Flink class and method a line." }</p>
                </Panel>
            </main>
            <StatusBar />
        </div>
    }
}
