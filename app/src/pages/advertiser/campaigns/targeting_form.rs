//! The campaign page's device and region targeting section: device types, the lowest OS
//! version per platform and regions within the campaign's countries. Like every edit after
//! the first submission, a change is a new revision that needs review.

use leptos::prelude::*;

use super::super::action_error;
use super::field_error_at;
use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::campaign::device_targeting::DEVICE_TYPES;
use crate::model::campaign::{Campaign, CampaignStatus, Platform};
use crate::server_fns::campaigns::targeting::EditCampaignTargeting;

#[component]
pub fn TargetingForm(c: Campaign, action: ServerAction<EditCampaignTargeting>) -> impl IntoView {
    let error = action_error(action);
    let saved = move || action.value().get().is_some_and(|r| r.is_ok());
    let read_only = matches!(c.status, CampaignStatus::Ended | CampaignStatus::Archived);
    let t = c.config.targeting.clone();
    let no_android = !c.config.platforms.contains(&Platform::Android);
    let no_ios = !c.config.platforms.contains(&Platform::Ios);
    let countries = c.config.countries.join(", ");
    view! {
        <section class="card" id="device-targeting">
            <h2>"Device and region targeting"</h2>
            <p class="muted">
                "Leave everything empty to reach every device in "{countries}". An offer list that does not "
                "say which device or region it is for still shows the offer; one that does is filtered."
            </p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Targeting saved."</div>
            </Show>
            <ActionForm action attr:class="grid-2 targeting-form">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=c.campaign_id.clone()/>
                <fieldset class="span-2">
                    <legend>"Device types (none checked: all)"</legend>
                    {DEVICE_TYPES.iter().map(|d| view! {
                        <label class="check">
                            <input type="checkbox" name=*d checked=t.device_types.iter().any(|x| x == d)/>
                            {*d}
                        </label>
                    }).collect_view()}
                    {field_error_at(error, "targeting.deviceTypes".to_owned())}
                </fieldset>
                <label>"Lowest Android version"
                    <input type="text" name="min_android" inputmode="decimal" placeholder="e.g. 10"
                        disabled=no_android
                        value=t.min_os_version.android.clone().unwrap_or_default()/>
                    {field_error_at(error, "targeting.minOsVersion.android".to_owned())}
                </label>
                <label>"Lowest iOS version"
                    <input type="text" name="min_ios" inputmode="decimal" placeholder="e.g. 16.4"
                        disabled=no_ios
                        value=t.min_os_version.ios.clone().unwrap_or_default()/>
                    {field_error_at(error, "targeting.minOsVersion.ios".to_owned())}
                </label>
                <label class="span-2">"Regions"
                    <input type="text" name="regions" placeholder="e.g. US-CA, US-NY"
                        value=t.regions.join(", ")/>
                    <small class="muted">
                        "ISO 3166-2 codes. A country with regions listed is reached in those regions only."
                    </small>
                    {field_error_at(error, "targeting.regions".to_owned())}
                </label>
                <div class="form-actions">
                    <button type="submit" disabled=read_only>"Save targeting"</button>
                </div>
            </ActionForm>
        </section>
    }
}
