//! The targeting sections of a survey campaign's page: quotas (add, rename and resize, copy,
//! delete) with their qualifications (add, change the accepted answers, delete), and the
//! custom screening questions (add, rewrite with their options, delete). Every control is a
//! plain form, so the page works without JavaScript. What may change follows the status
//! policy of docs/surveys.md: everything while DRAFT or PENDING_APPROVAL, only quota sizes
//! while LIVE or PAUSED.

use leptos::prelude::*;

use super::super::{action_error, successes};
use crate::components::form::{CsrfField, Submit};
use crate::error::AppError;
use crate::model::survey::targeting::{CustomQuestion, ProfilingQuestion, Qualification, Quota};
use crate::server_fns::surveys::targeting::{
    AddQualification, AddQuestion, AddQuota, CloneQuota, DeleteQualification, DeleteQuestion,
    DeleteQuota, UpdateQualification, UpdateQuestion, UpdateQuota,
};

/// Every targeting form of the page; the page re-reads the campaign after any success.
#[derive(Clone, Copy)]
pub(super) struct TargetingActions {
    add_quota: ServerAction<AddQuota>,
    update_quota: ServerAction<UpdateQuota>,
    clone_quota: ServerAction<CloneQuota>,
    delete_quota: ServerAction<DeleteQuota>,
    add_qualification: ServerAction<AddQualification>,
    update_qualification: ServerAction<UpdateQualification>,
    delete_qualification: ServerAction<DeleteQualification>,
    add_question: ServerAction<AddQuestion>,
    update_question: ServerAction<UpdateQuestion>,
    delete_question: ServerAction<DeleteQuestion>,
}

impl TargetingActions {
    pub(super) fn new() -> Self {
        Self {
            add_quota: ServerAction::new(),
            update_quota: ServerAction::new(),
            clone_quota: ServerAction::new(),
            delete_quota: ServerAction::new(),
            add_qualification: ServerAction::new(),
            update_qualification: ServerAction::new(),
            delete_qualification: ServerAction::new(),
            add_question: ServerAction::new(),
            update_question: ServerAction::new(),
            delete_question: ServerAction::new(),
        }
    }

    /// Counts every successful change (a resource key that moves after each).
    pub(super) fn changes(self) -> Signal<usize> {
        let counts = [
            successes(self.add_quota),
            successes(self.update_quota),
            successes(self.clone_quota),
            successes(self.delete_quota),
            successes(self.add_qualification),
            successes(self.update_qualification),
            successes(self.delete_qualification),
            successes(self.add_question),
            successes(self.update_question),
            successes(self.delete_question),
        ];
        Signal::derive(move || counts.iter().map(|m| m.get()).sum())
    }

    /// The refusal of the last targeting form that failed, if any.
    pub(super) fn error(self) -> Signal<Option<AppError>> {
        let errors = [
            action_error(self.add_quota),
            action_error(self.update_quota),
            action_error(self.clone_quota),
            action_error(self.delete_quota),
            action_error(self.add_qualification),
            action_error(self.update_qualification),
            action_error(self.delete_qualification),
            action_error(self.add_question),
            action_error(self.update_question),
            action_error(self.delete_question),
        ];
        Signal::derive(move || errors.iter().find_map(|e| e.get()))
    }
}

/// What the campaign's status lets the advertiser change.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Editing {
    /// DRAFT or PENDING_APPROVAL: everything.
    All,
    /// LIVE or PAUSED: quota sizes only.
    Sizes,
    /// CLOSED: nothing.
    Nothing,
}

#[component]
pub(super) fn Quotas(
    campaign: String,
    quotas: Vec<Quota>,
    catalog: Vec<ProfilingQuestion>,
    actions: TargetingActions,
    editing: Editing,
) -> impl IntoView {
    let empty = quotas.is_empty();
    let rows = quotas
        .into_iter()
        .map(|q| {
            view! { <QuotaRow campaign=campaign.clone() q catalog=catalog.clone() actions editing/> }
                .into_any()
        })
        .collect_view();
    view! {
        <section class="card" id="quotas">
            <h2>"Quotas"</h2>
            <p class="muted">"A respondent qualifies for a quota when they pass all its qualifications; a campaign without quotas takes every respondent of its market."</p>
            {if empty {
                view! { <p class="muted">"No quotas: everyone in the market qualifies."</p> }.into_any()
            } else {
                view! {
                    <table>
                        <thead><tr><th>"Quota"</th><th class="num">"Completes"</th><th>"Qualifications"</th><th></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                }.into_any()
            }}
            {(editing == Editing::All).then(|| view! {
                <ActionForm action=actions.add_quota attr:class="row">
                    <CsrfField/><input type="hidden" name="campaign_id" value=campaign/>
                    <label>"Name"<input name="name" required maxlength="120"/></label>
                    <label>"Respondents"<input name="num_respondents" inputmode="numeric" required/></label>
                    <Submit action=actions.add_quota label="Add quota"/>
                </ActionForm>
            })}
        </section>
    }
}

#[component]
fn QuotaRow(
    campaign: String,
    q: Quota,
    catalog: Vec<ProfilingQuestion>,
    actions: TargetingActions,
    editing: Editing,
) -> impl IntoView {
    let all = editing == Editing::All;
    let ids = Ids {
        campaign,
        quota: q._id.clone(),
    };
    let name = if editing == Editing::Nothing {
        view! { <strong>{q.name.clone()}</strong> }.into_any()
    } else {
        view! { <QuotaEditForm ids=ids.clone() name=q.name.clone() size=q.num_respondents actions all/> }
            .into_any()
    };
    let quals = if q.qualifications.is_empty() {
        view! { <span>"Anyone in the market"</span> }.into_any()
    } else {
        let items = q
            .qualifications
            .iter()
            .map(|x| view! { <QualificationItem campaign=ids.campaign.clone() x=x.clone() actions all/> })
            .collect_view();
        view! { <ul class="qualifications">{items}</ul> }.into_any()
    };
    let add = all.then(|| view! { <AddQualificationForm ids=ids.clone() catalog actions/> });
    let buttons = all.then(|| view! { <QuotaButtons ids=ids.clone() actions/> });
    view! {
        <tr data-quota=ids.quota.clone()>
            <td>{name}</td>
            <td class="num">{q.completes}" / "{q.num_respondents}</td>
            <td>{quals}{add}</td>
            <td>{buttons}</td>
        </tr>
    }
}

/// The campaign and quota a row's forms name.
#[derive(Clone)]
struct Ids {
    campaign: String,
    quota: String,
}

/// The hidden fields naming the campaign and the quota.
#[component]
fn IdFields(ids: Ids) -> impl IntoView {
    view! {
        <CsrfField/>
        <input type="hidden" name="campaign_id" value=ids.campaign/>
        <input type="hidden" name="quota_id" value=ids.quota/>
    }
}

/// A quota's copy and delete buttons.
#[component]
fn QuotaButtons(ids: Ids, actions: TargetingActions) -> impl IntoView {
    let other = ids.clone();
    view! {
        <ActionForm action=actions.clone_quota>
            <IdFields ids/>
            <Submit action=actions.clone_quota label="Copy" class="secondary"/>
        </ActionForm>
        <ActionForm action=actions.delete_quota>
            <IdFields ids=other/>
            <Submit action=actions.delete_quota label="Delete" class="danger"/>
        </ActionForm>
    }
}

/// A quota's name and size; a LIVE campaign's quota keeps its name (shown read-only).
#[component]
fn QuotaEditForm(
    ids: Ids,
    name: String,
    size: i64,
    actions: TargetingActions,
    all: bool,
) -> impl IntoView {
    view! {
        <ActionForm action=actions.update_quota attr:class="row compact quota-edit">
            <IdFields ids/>
            <input name="name" required maxlength="120" aria-label="Quota name" value=name readonly=!all/>
            <input name="num_respondents" inputmode="numeric" required aria-label="Respondents" value=size.to_string() size="6"/>
            <Submit action=actions.update_quota label="Save" class="secondary"/>
        </ActionForm>
    }
}

/// A qualification's accepted answers as the forms read and write them.
fn criteria_text(x: &Qualification) -> String {
    if !x.answer_ids.is_empty() {
        x.answer_ids.join(", ")
    } else if !x.ranges.is_empty() {
        x.ranges
            .iter()
            .map(|r| format!("{}-{}", r.min, r.max))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        x.values.join(", ")
    }
}

#[component]
fn QualificationItem(
    campaign: String,
    x: Qualification,
    actions: TargetingActions,
    all: bool,
) -> impl IntoView {
    let text = criteria_text(&x);
    if !all {
        return view! { <li data-qualification=x._id.clone()>{format!("{}: {text}", x.question_id)}</li> }
            .into_any();
    }
    let ids = Ids {
        campaign,
        quota: x.quota_id.clone(),
    };
    let label = format!("Accepted answers of {}", x.question_id);
    let (id, id2, id3) = (x._id.clone(), x._id.clone(), x._id.clone());
    let shown = x.question_id.clone();
    let other = ids.clone();
    view! {
        <li data-qualification=id>
            <ActionForm action=actions.update_qualification attr:class="row compact">
                <IdFields ids/>
                <input type="hidden" name="qualification_id" value=id2/>
                <code>{shown}</code>
                <input name="criteria" required aria-label=label value=text/>
                <Submit action=actions.update_qualification label="Save" class="secondary"/>
            </ActionForm>
            <ActionForm action=actions.delete_qualification attr:class="inline">
                <IdFields ids=other/>
                <input type="hidden" name="qualification_id" value=id3/>
                <Submit action=actions.delete_qualification label="Remove" class="danger"/>
            </ActionForm>
        </li>
    }
    .into_any()
}

#[component]
fn AddQualificationForm(
    ids: Ids,
    catalog: Vec<ProfilingQuestion>,
    actions: TargetingActions,
) -> impl IntoView {
    let options = catalog
        .into_iter()
        .map(|c| {
            let hint = c
                .answers
                .iter()
                .map(|a| format!("{}={}", a.answer_id, a.answer_text))
                .collect::<Vec<_>>()
                .join(", ");
            let label = format!("{} ({})", c.question_id, c.question_type);
            view! { <option value=c.question_id.clone() title=hint>{label}</option> }
        })
        .collect_view();
    view! {
        <ActionForm action=actions.add_qualification attr:class="row compact">
            <IdFields ids/>
            <select name="question_id" aria-label="Question">{options}</select>
            <input name="criteria" required aria-label="Accepted answers" placeholder="answer ids (1, 2), ranges (18-34) or postal prefixes"/>
            <Submit action=actions.add_qualification label="Add" class="secondary"/>
        </ActionForm>
    }
}

/// A question's options as the form's textarea holds them (`!` marks a screen-out).
fn option_lines(q: &CustomQuestion) -> String {
    q.options
        .iter()
        .map(|o| {
            let mark = if o.screens_out() { "!" } else { "" };
            format!("{mark}{}", o.value)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[component]
pub(super) fn Questions(
    campaign: String,
    questions: Vec<CustomQuestion>,
    actions: TargetingActions,
    all: bool,
) -> impl IntoView {
    let empty = questions.is_empty();
    let items = questions
        .into_iter()
        .map(|q| view! { <QuestionItem campaign=campaign.clone() q actions all/> })
        .collect_view();
    view! {
        <section class="card" id="custom-questions">
            <h2>"Custom questions"</h2>
            {if empty {
                view! { <p class="muted">"No custom questions."</p> }.into_any()
            } else {
                view! { <ol>{items}</ol> }.into_any()
            }}
            {all.then(|| view! {
                <ActionForm action=actions.add_question attr:class="stack">
                    <CsrfField/><input type="hidden" name="campaign_id" value=campaign/>
                    <QuestionFields text=String::new() multi=false lines=String::new()/>
                    <div class="form-actions"><Submit action=actions.add_question label="Add question"/></div>
                </ActionForm>
            })}
        </section>
    }
}

/// The text, kind and options fields shared by the add and edit forms.
#[component]
fn QuestionFields(text: String, multi: bool, lines: String) -> impl IntoView {
    let rows = lines.lines().count().clamp(4, 12).to_string();
    view! {
        <label>"Question"<input name="display_text" required maxlength="1000" value=text/></label>
        <label class="check"><input type="checkbox" name="multi" value="1" checked=multi/>"Several answers allowed"</label>
        <label>"Options, one per line (start a line with ! to screen the respondent out)"
            <textarea name="options" rows=rows required>{lines}</textarea></label>
    }
}

#[component]
fn QuestionItem(
    campaign: String,
    q: CustomQuestion,
    actions: TargetingActions,
    all: bool,
) -> impl IntoView {
    let summary = q
        .options
        .iter()
        .map(|o| {
            let out = if o.screens_out() {
                " (screens out)"
            } else {
                ""
            };
            format!("{}{out}", o.value)
        })
        .collect::<Vec<_>>()
        .join(" · ");
    let multi = q.multi_punch();
    let kind = if multi { "multi-punch" } else { "single-punch" };
    let edit = all.then(|| {
        view! { <QuestionEdit campaign question=q._id.clone() text=q.display_text.clone() multi lines=option_lines(&q) actions/> }
    });
    view! {
        <li data-question=q._id.clone()>
            <strong>{q.display_text.clone()}</strong>" "<span class="muted">{kind}</span><br/>{summary}
            {edit}
        </li>
    }
}

/// The rewrite and delete forms of a question, folded away until opened.
#[component]
fn QuestionEdit(
    campaign: String,
    question: String,
    text: String,
    multi: bool,
    lines: String,
    actions: TargetingActions,
) -> impl IntoView {
    let (c2, q2) = (campaign.clone(), question.clone());
    view! {
        <details>
            <summary>"Edit or delete"</summary>
            <ActionForm action=actions.update_question attr:class="stack">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=campaign/>
                <input type="hidden" name="question_id" value=question/>
                <QuestionFields text multi lines/>
                <div class="form-actions"><Submit action=actions.update_question label="Save question"/></div>
            </ActionForm>
            <ActionForm action=actions.delete_question>
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=c2/>
                <input type="hidden" name="question_id" value=q2/>
                <Submit action=actions.delete_question label="Delete question" class="danger"/>
            </ActionForm>
        </details>
    }
}
