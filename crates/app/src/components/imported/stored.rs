//! The bundles stored in this browser: reopen one (`#job=<key>`) or delete it.

use yew::prelude::*;

use crate::format::bytes;
use crate::imported::store::StoredBundle;

#[derive(Properties, PartialEq)]
pub struct StoredProps {
    pub bundles: std::rc::Rc<Vec<StoredBundle>>,
    /// The key of the bundle on show.
    pub current: Option<AttrValue>,
    pub ondelete: Callback<String>,
    pub error: Option<AttrValue>,
}

#[function_component(StoredBundles)]
pub fn stored_bundles(p: &StoredProps) -> Html {
    html! {
        <div id="import-stored">
            if p.bundles.is_empty() {
                <p class="empty">{ "No Flink job is stored in this browser yet." }</p>
            } else {
                <ul class="import-stored-list">
                    { for p.bundles.iter().map(|b| {
                        let key = b.key.clone();
                        let ondelete = p.ondelete.reform(move |_| key.clone());
                        let current = p.current.as_deref() == Some(b.key.as_str());
                        html! {
                            <li class={classes!("import-stored-row", current.then_some("current"))} data-key={b.key.clone()}>
                                <a class="import-stored-open" href={crate::imported::fragment(&b.key)}
                                   aria-current={current.then_some("page")}>{ &b.name }</a>
                                <span class="muted">
                                    { format!(" {} · Flink {} · collected {} · {} checkpoint{} · {}",
                                        b.job_id, b.flink_version, b.collected_at, b.checkpoints,
                                        if b.checkpoints == 1 { "" } else { "s" }, bytes(u64::from(b.size))) }
                                </span>
                                <button class="icon import-stored-delete" onclick={ondelete}
                                        title={format!("Delete {} from this browser", b.name)}
                                        aria-label={format!("Delete {} from this browser", b.name)}>{ "×" }</button>
                            </li>
                        }
                    }) }
                </ul>
            }
            if let Some(e) = &p.error {
                <p class="error" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}
