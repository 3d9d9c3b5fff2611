//! The placement page's actions, created once for the page so that their answers (and the
//! secrets in them) survive the reload of the placement they trigger; the page's sections
//! share them.

use leptos::prelude::*;

use crate::server_fns::publisher::*;
use crate::server_fns::user_identity::{IssueUserIdentitySecret, SetUserIdentityRequired};

/// Every action of the page, created once so that their answers (and the secrets in them)
/// survive the reload of the placement they trigger.
#[derive(Clone, Copy)]
pub(in crate::pages::publisher) struct DetailActions {
    pub update: ServerAction<UpdatePlacement>,
    pub review: ServerAction<RequestReview>,
    pub delete: ServerAction<DeletePlacement>,
    pub app_key: ServerAction<IssueAppKey>,
    pub create_slot: ServerAction<CreateSlot>,
    pub configure: ServerAction<ConfigureCallback>,
    pub rotate: ServerAction<RotateCallback>,
    pub promote: ServerAction<PromoteCallback>,
    pub test: ServerAction<TestCallback>,
    pub remove_callback: ServerAction<crate::server_fns::publisher::deliveries::RemoveCallback>,
    pub user_secret: ServerAction<IssueUserIdentitySecret>,
    pub user_required: ServerAction<SetUserIdentityRequired>,
}

impl DetailActions {
    pub(super) fn new() -> Self {
        DetailActions {
            update: ServerAction::new(),
            review: ServerAction::new(),
            delete: ServerAction::new(),
            app_key: ServerAction::new(),
            create_slot: ServerAction::new(),
            configure: ServerAction::new(),
            rotate: ServerAction::new(),
            promote: ServerAction::new(),
            test: ServerAction::new(),
            remove_callback: ServerAction::new(),
            user_secret: ServerAction::new(),
            user_required: ServerAction::new(),
        }
    }

    /// Changes whenever an action that alters the placement completes.
    pub(super) fn changes(&self) -> usize {
        self.update.version().get()
            + self.review.version().get()
            + self.create_slot.version().get()
            + self.configure.version().get()
            + self.rotate.version().get()
            + self.promote.version().get()
            + self.remove_callback.version().get()
    }

    /// Secrets returned to a scripted page.
    pub(super) fn secrets(&self) -> Vec<OneTimeSecret> {
        let mut out = Vec::new();
        if let Some(Ok(s)) = self.configure.value().get() {
            if let (Some(secret), Some(standard)) = (s.secret, s.standard_webhooks_secret) {
                out.push(OneTimeSecret {
                    label: callback_secret_label("Callback signing secret", &s.key_id),
                    value: format!("{secret}\n{standard}"),
                });
            }
        }
        if let Some(Ok(k)) = self.rotate.value().get() {
            out.push(OneTimeSecret {
                label: callback_secret_label("Next callback signing secret", &k.key_id),
                value: format!("{}\n{}", k.secret, k.standard_webhooks_secret),
            });
        }
        if let Some(Ok(k)) = self.user_secret.value().get() {
            out.push(OneTimeSecret {
                label: "User identity secret".to_owned(),
                value: k.secret,
            });
        }
        if let Some(Ok(k)) = self.app_key.value().get() {
            out.push(OneTimeSecret {
                label: "Survey app key".to_owned(),
                value: k.app_key,
            });
        }
        out
    }
}
