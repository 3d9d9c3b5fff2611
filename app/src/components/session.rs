//! What the pages know of the visitor's session: the session resource the layout provides
//! and the CSRF token `RequireUser` hands to the forms of its page.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::Visitor;

/// The visitor's session (account and CSRF token), re-read on every navigation so the
/// header follows sign-in and sign-out. Provided by the layout.
#[derive(Clone, Copy)]
pub struct AuthContext {
    pub session: Resource<Result<Visitor, AppError>>,
}

/// The signed-in visitor's CSRF token with the path of the page that read it, set by
/// `RequireUser` once the session is read, so the forms of that page carry it without each
/// reading the session in a boundary of its own (a resource read in many `<Suspense>`
/// boundaries can stall the async renderer). Another page (sign-in after sign-out) reads
/// the session itself.
#[derive(Clone, Copy)]
pub struct CsrfToken(pub RwSignal<Option<(String, String)>>);
