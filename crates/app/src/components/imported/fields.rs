//! Labelled figures in the Web UI's two-column layout (Overview, Configuration).

use yew::prelude::*;

use crate::imported::view::Field;

#[derive(Properties, PartialEq)]
pub struct FieldsProps {
    pub fields: Vec<Field>,
    #[prop_or_default]
    pub caption: Option<AttrValue>,
    #[prop_or_default]
    pub id: Option<AttrValue>,
}

#[function_component(Fields)]
pub fn fields(p: &FieldsProps) -> Html {
    html! {
        <table id={p.id.clone()} class="import-fields">
            if let Some(c) = &p.caption {
                <caption>{ c.clone() }</caption>
            }
            <tbody>
                { for p.fields.iter().map(|(label, value)| html! {
                    <tr><th scope="row">{ *label }</th><td>{ value }</td></tr>
                }) }
            </tbody>
        </table>
    }
}
