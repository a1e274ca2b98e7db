//! The configuration panel: every key the engine understands (Flink's names verbatim), its
//! default and description, editable and checked by the engine's parser; plus a textarea for a
//! Flink `config.yaml`: modelled keys apply, other Flink 2.3 keys are listed as not modelled.

use std::collections::BTreeMap;
use std::rc::Rc;

use barrierlab_engine::scenario::{
    apply_flink_conf, check_value, resolve_key, ConfNote, FlinkConfig, Scenario, CONFIG_KEYS,
};
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::cost_note::CostNote;
use crate::state::{Action, State};

#[derive(Properties, PartialEq)]
pub struct ConfigProps {
    pub live: Rc<Scenario>,
    pub dispatch: UseReducerDispatcher<State>,
}

/// Sets `key` to `value` in `map` (empty removes it), or says why the value is bad.
pub fn set_key(map: &mut BTreeMap<String, String>, key: &str, value: &str) -> Result<(), String> {
    let info = resolve_key(key)?;
    let value = value.trim();
    map.remove(key);
    for old in info.deprecated_keys {
        map.remove(*old);
    }
    if value.is_empty() {
        map.remove(info.key);
        return Ok(());
    }
    check_value(info, value)?;
    map.insert(info.key.to_string(), value.to_string());
    Ok(())
}

/// Applies a `config.yaml` to `live` with the table's unapplied edits (`draft`): the scenario to
/// run and the notes on keys not modelled, or every problem (nothing applied).
pub fn apply_yaml(
    live: &Scenario,
    draft: &BTreeMap<String, String>,
    text: &str,
) -> Result<(Scenario, Vec<ConfNote>), Vec<String>> {
    let mut base = live.clone();
    base.config = draft.clone();
    apply_flink_conf(&base, text)
}

#[function_component(ConfigPanel)]
pub fn config_panel(p: &ConfigProps) -> Html {
    let draft = use_state(|| p.live.config.clone());
    let errors = use_state(BTreeMap::<String, String>::new);
    let yaml = use_state(String::new);
    let yaml_errors = use_state(Vec::<String>::new);
    // Kept after the paste applied (the job restarts), until the next paste.
    let yaml_notes = use_state(Vec::<ConfNote>::new);
    {
        let (draft, errors) = (draft.clone(), errors.clone());
        use_effect_with(p.live.clone(), move |live| {
            draft.set(live.config.clone());
            errors.set(BTreeMap::new());
        });
    }
    let whole: Vec<String> = FlinkConfig::from_map(&draft).err().unwrap_or_default();
    let dirty = *draft != p.live.config;
    let apply = {
        let (d, draft, live) = (p.dispatch.clone(), draft.clone(), p.live.clone());
        Callback::from(move |_| {
            let mut s = (*live).clone();
            s.config = (*draft).clone();
            d.dispatch(Action::ApplyScenario(Box::new(s)));
        })
    };
    let on_apply_yaml = {
        let (d, yaml, yaml_errors, yaml_notes, live, draft) = (
            p.dispatch.clone(),
            yaml.clone(),
            yaml_errors.clone(),
            yaml_notes.clone(),
            p.live.clone(),
            draft.clone(),
        );
        Callback::from(move |_| match apply_yaml(&live, &draft, &yaml) {
            Ok((s, notes)) => {
                yaml_errors.set(Vec::new());
                yaml_notes.set(notes);
                d.dispatch(Action::ApplyScenario(Box::new(s)));
            }
            Err(e) => {
                yaml_notes.set(Vec::new());
                yaml_errors.set(e);
            }
        })
    };
    let on_yaml = {
        let yaml = yaml.clone();
        Callback::from(move |e: InputEvent| {
            let t: HtmlTextAreaElement = e.target_unchecked_into();
            yaml.set(t.value());
        })
    };
    html! {
        <div class="config" id="config">
            <div class="table-scroll config-scroll">
            <table class="data config-table" id="config-table">
                <thead><tr><th>{ "key" }</th><th>{ "value" }</th><th>{ "description" }</th></tr></thead>
                <tbody>
                { for CONFIG_KEYS.iter().map(|info| {
                    let key = info.key;
                    let value = draft.get(key).cloned().unwrap_or_default();
                    let onchange = {
                        let (draft, errors) = (draft.clone(), errors.clone());
                        Callback::from(move |e: Event| {
                            let input: HtmlInputElement = e.target_unchecked_into();
                            let mut next = (*draft).clone();
                            let mut errs = (*errors).clone();
                            match set_key(&mut next, key, &input.value()) {
                                Ok(()) => { errs.remove(key); draft.set(next); }
                                Err(m) => { errs.insert(key.to_string(), m); }
                            }
                            errors.set(errs);
                        })
                    };
                    let err = errors.get(key).cloned();
                    html! {
                        <tr data-key={key} class={classes!(err.is_some().then_some("invalid"))}>
                            <td class="key"><code>{ key }</code></td>
                            <td class="value">
                                <input type="text" value={value} placeholder={if info.default.is_empty() { "(unset)" } else { info.default }}
                                       aria-label={key} autocomplete="off" spellcheck="false" {onchange} />
                                if let Some(m) = err { <div class="error field-error">{ m }</div> }
                            </td>
                            <td class="desc">
                                { info.description }
                                if !info.default.is_empty() { <span class="muted">{ format!(" Default: {}.", info.default) }</span> }
                            </td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            </div>
            if !whole.is_empty() {
                <ul class="validation" id="config-errors">{ for whole.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
            }
            if whole.is_empty() && dirty {
                <CostNote draft={{ let mut s = (*p.live).clone(); s.config = (*draft).clone(); s }} id="config-cost" />
            }
            <div class="editor-actions">
                <button id="config-apply" class="primary" disabled={!dirty || !errors.is_empty() || !whole.is_empty()} onclick={apply}>{ "Apply & restart" }</button>
            </div>
            <h3>{ "Paste a Flink config.yaml" }</h3>
            <p class="muted config-yaml-help">
                { "A whole Flink 2.3 config.yaml (nested or flat keys). The keys the simulator models change the job \
                   (parallelism.default, taskmanager.numberOfTaskSlots, execution.checkpointing.*, …); any other Flink 2.3 key \
                   is accepted and listed as not modelled; an unknown key or a bad value is refused with its line." }
            </p>
            <textarea id="yaml" rows="5" spellcheck="false" value={(*yaml).clone()} oninput={on_yaml}
                      placeholder={"execution.checkpointing.interval: 5s\nexecution.checkpointing.unaligned.enabled: true"} />
            if !yaml_errors.is_empty() {
                <ul class="validation" id="yaml-errors" role="alert">{ for yaml_errors.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
            }
            if !yaml_notes.is_empty() {
                <div class="config-notes" id="yaml-notes" role="status">
                    <p>{ format!("Applied. {} note{}:", yaml_notes.len(), if yaml_notes.len() == 1 { "" } else { "s" }) }</p>
                    <ul>{ for yaml_notes.iter().map(|n| html! {
                        <li data-line={n.line.to_string()} data-key={n.key.clone()}>
                            <span class="muted">{ format!("line {} ", n.line) }</span><code>{ n.key.clone() }</code>{ format!(": {}", n.message) }
                        </li>
                    }) }</ul>
                </div>
            }
            <div class="editor-actions">
                <button id="yaml-apply" onclick={on_apply_yaml}>{ "Apply YAML & restart" }</button>
            </div>
        </div>
    }
}
