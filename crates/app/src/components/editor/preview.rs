//! The draft as a layered graph (longest path from the sources, left to right); drag a node to
//! adjust its place. Names are SVG text nodes, never markup.

use std::collections::BTreeMap;

use barrierlab_engine::scenario::Scenario;
use yew::prelude::*;

use super::draft::layers;

const NW: f64 = 150.0;
const NH: f64 = 40.0;
const GX: f64 = 60.0;
const GY: f64 = 22.0;
const PAD: f64 = 10.0;

#[derive(Properties, PartialEq)]
pub struct PreviewProps {
    pub draft: Scenario,
}

fn clip(name: &str) -> String {
    if name.chars().count() > 20 {
        format!("{}…", name.chars().take(19).collect::<String>())
    } else {
        name.to_string()
    }
}

#[function_component(Preview)]
pub fn preview(p: &PreviewProps) -> Html {
    let offsets = use_state(BTreeMap::<String, (f64, f64)>::new);
    let drag = use_mut_ref(|| None::<(String, f64, f64, (f64, f64))>);
    let s = &p.draft;
    let layer = layers(s);
    let mut row = BTreeMap::<u32, u32>::new();
    let pos: Vec<(f64, f64)> = s
        .operators
        .iter()
        .zip(&layer)
        .map(|(o, l)| {
            let r = row.entry(*l).or_insert(0);
            let base = (PAD + *l as f64 * (NW + GX), PAD + *r as f64 * (NH + GY));
            *r += 1;
            let off = offsets.get(&o.name).copied().unwrap_or((0.0, 0.0));
            ((base.0 + off.0).max(0.0), (base.1 + off.1).max(0.0))
        })
        .collect();
    let width = pos.iter().map(|p| p.0 + NW + PAD).fold(200.0, f64::max);
    let height = pos.iter().map(|p| p.1 + NH + PAD).fold(60.0, f64::max);
    let onmove = {
        let (drag, offsets) = (drag.clone(), offsets.clone());
        Callback::from(move |e: PointerEvent| {
            if let Some((name, x0, y0, start)) = drag.borrow().as_ref() {
                let mut next = (*offsets).clone();
                next.insert(
                    name.clone(),
                    (
                        start.0 + e.client_x() as f64 - x0,
                        start.1 + e.client_y() as f64 - y0,
                    ),
                );
                offsets.set(next);
            }
        })
    };
    let onup = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| *drag.borrow_mut() = None)
    };
    html! {
        <svg class="editor-graph" id="editor-graph" width={width.to_string()} height={height.to_string()}
             onpointermove={onmove} onpointerup={onup.clone()} onpointerleave={onup}
             role="img" aria-label="Draft topology">
            <defs>
                <marker id="editor-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
                    <path d="M0,0 L10,5 L0,10 z" class="arrowhead" />
                </marker>
            </defs>
            { for s.edges.iter().filter_map(|e| {
                let a = pos.get(s.operator_index(&e.from)?)?;
                let b = pos.get(s.operator_index(&e.to)?)?;
                let (x1, y1, x2, y2) = (a.0 + NW, a.1 + NH / 2.0, b.0, b.1 + NH / 2.0);
                Some(html! {
                    <g class="editor-edge">
                        <line x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} marker-end="url(#editor-arrow)" />
                        <text x={((x1 + x2) / 2.0).to_string()} y={((y1 + y2) / 2.0 - 4.0).to_string()} text-anchor="middle">{ e.partitioner.to_string() }</text>
                    </g>
                })
            }) }
            { for s.operators.iter().zip(&pos).map(|(o, (x, y))| {
                let default_parallelism = s.default_parallelism();
                let onpointerdown = {
                    let (drag, name, offsets) = (drag.clone(), o.name.clone(), offsets.clone());
                    Callback::from(move |e: PointerEvent| {
                        let start = offsets.get(&name).copied().unwrap_or((0.0, 0.0));
                        *drag.borrow_mut() = Some((name.clone(), e.client_x() as f64, e.client_y() as f64, start));
                    })
                };
                html! {
                    <g class="editor-node" data-name={o.name.clone()} {onpointerdown}>
                        <rect x={x.to_string()} y={y.to_string()} width={NW.to_string()} height={NH.to_string()} rx="5" />
                        <text x={(x + 8.0).to_string()} y={(y + 16.0).to_string()} class="node-name">{ clip(&o.name) }</text>
                        <text x={(x + 8.0).to_string()} y={(y + 31.0).to_string()} class="node-meta">
                            { format!("{} ×{}", o.kind.type_name(), o.parallelism_or(default_parallelism)) }
                        </text>
                    </g>
                }
            }) }
        </svg>
    }
}
