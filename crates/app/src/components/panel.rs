use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub id: AttrValue,
    pub title: AttrValue,
    /// The CSS grid area the panel occupies.
    pub area: AttrValue,
    #[prop_or_default]
    pub children: Html,
}

/// A titled region of the workspace.
#[function_component(Panel)]
pub fn panel(props: &PanelProps) -> Html {
    html! {
        <section id={props.id.clone()} class={classes!("panel", format!("area-{}", props.area))}
                 aria-label={props.title.clone()}>
            <h2 class="panel-title">{ props.title.clone() }</h2>
            <div class="panel-body">{ props.children.clone() }</div>
        </section>
    }
}
