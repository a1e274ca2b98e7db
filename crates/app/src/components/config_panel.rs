//! The configuration panel: every key the engine understands (Flink's names verbatim), its
//! default and description, editable and checked by the engine's parser; plus a textarea for a
//! Flink `config.yaml` snippet.

use std::collections::BTreeMap;
use std::rc::Rc;

use barrierlab_engine::scenario::{
    check_value, parse_flink_yaml, resolve_key, FlinkConfig, Scenario, CONFIG_KEYS,
};
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

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

/// Merges a `config.yaml` snippet into `map`; every problem is reported, nothing merged on error.
pub fn merge_yaml(
    map: &BTreeMap<String, String>,
    text: &str,
) -> Result<BTreeMap<String, String>, Vec<String>> {
    let pairs = parse_flink_yaml(text).map_err(|e| vec![e])?;
    let mut next = map.clone();
    let errors: Vec<String> = pairs
        .iter()
        .filter_map(|(k, v)| set_key(&mut next, k, v).err())
        .collect();
    if errors.is_empty() {
        Ok(next)
    } else {
        Err(errors)
    }
}

#[function_component(ConfigPanel)]
pub fn config_panel(p: &ConfigProps) -> Html {
    let draft = use_state(|| p.live.config.clone());
    let errors = use_state(BTreeMap::<String, String>::new);
    let yaml = use_state(String::new);
    let yaml_errors = use_state(Vec::<String>::new);
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
    let apply_yaml = {
        let (d, yaml, yaml_errors, live, draft) = (
            p.dispatch.clone(),
            yaml.clone(),
            yaml_errors.clone(),
            p.live.clone(),
            draft.clone(),
        );
        Callback::from(move |_| match merge_yaml(&draft, &yaml) {
            Ok(map) => match FlinkConfig::from_map(&map) {
                Ok(_) => {
                    yaml_errors.set(Vec::new());
                    let mut s = (*live).clone();
                    s.config = map;
                    d.dispatch(Action::ApplyScenario(Box::new(s)));
                }
                Err(e) => yaml_errors.set(e),
            },
            Err(e) => yaml_errors.set(e),
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
            <div class="editor-actions">
                <button id="config-apply" class="primary" disabled={!dirty || !errors.is_empty() || !whole.is_empty()} onclick={apply}>{ "Apply & restart" }</button>
            </div>
            <h3>{ "Paste a Flink config.yaml snippet" }</h3>
            <textarea id="yaml" rows="5" spellcheck="false" value={(*yaml).clone()} oninput={on_yaml}
                      placeholder={"execution.checkpointing.interval: 5s\nexecution.checkpointing.unaligned.enabled: true"} />
            if !yaml_errors.is_empty() {
                <ul class="validation" id="yaml-errors" role="alert">{ for yaml_errors.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
            }
            <div class="editor-actions">
                <button id="yaml-apply" onclick={apply_yaml}>{ "Apply YAML & restart" }</button>
            </div>
        </div>
    }
}
