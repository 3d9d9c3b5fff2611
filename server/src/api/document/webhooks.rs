//! The document's `webhooks` section: the account events an organisation's endpoint
//! receives (`POST /auth/v1/webhooks`), one entry per topic and the test event, each a POST of
//! an `AccountEvent` signed with the Standard Webhooks headers.

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::{ObjectBuilder, OpenApi, PathsBuilder, Ref, Required, Type};

use app::domain::callback_delivery::account_webhooks::TEST_EVENT;
use app::model::NoticeTopic;

/// Adds one webhook per account event type.
pub fn add(openapi: &mut OpenApi) {
    let mut paths = PathsBuilder::new();
    let types = NoticeTopic::ALL
        .iter()
        .map(|t| t.as_str())
        .chain(std::iter::once(TEST_EVENT));
    for name in types {
        paths = paths.path(name, PathItem::new(HttpMethod::Post, operation(name)));
    }
    openapi.webhooks = Some(paths.build());
}

fn header(name: &str, description: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Header)
        .required(Required::True)
        .description(Some(description))
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .build()
}

fn operation(name: &str) -> utoipa::openapi::path::Operation {
    let body = RequestBodyBuilder::new()
        .required(Some(Required::True))
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("AccountEvent")))
                .build(),
        )
        .build();
    OperationBuilder::new()
        .operation_id(Some(format!("accountEvent_{}", name.replace('.', "_"))))
        .summary(Some(format!("Account event `{name}`")))
        .description(Some(format!(
            "Sent to each account webhook listening to `{name}` (docs/notifications.md). Verify \
             `webhook-signature` with the endpoint's `whsec_` secret as Standard Webhooks \
             describes (HMAC-SHA256 of `webhook-id.webhook-timestamp.body`); `webhook-id` is \
             the same on every retry of one event. Answer 2xx within 10 seconds; anything else \
             is retried for about three days, and a day of failures pauses the endpoint."
        )))
        .tag("auth")
        .parameter(header(
            "webhook-id",
            "The message id (`msg_…`), equal to the body's `id`",
        ))
        .parameter(header("webhook-timestamp", "Unix seconds of this attempt"))
        .parameter(header(
            "webhook-signature",
            "`v1,` and the base64 HMAC-SHA256 signature",
        ))
        .request_body(Some(body))
        .response(
            "200",
            ResponseBuilder::new().description("Received").build(),
        )
        .build()
}
