//! How a failed server function reaches the browser: the same `AppError` body the JSON
//! APIs answer with, and the transport's own failures (a missing argument, an unreachable
//! server) turned into that body, so pages handle one error type.

use crate::error::AppError;

impl leptos::server_fn::error::FromServerFnError for AppError {
    type Encoder = leptos::server_fn::codec::JsonEncoding;

    fn from_server_fn_error(value: leptos::server_fn::error::ServerFnErrorErr) -> Self {
        use leptos::server_fn::error::ServerFnErrorErr as E;
        match value {
            E::Args(m) | E::MissingArg(m) => AppError::invalid(m),
            E::Request(m) => AppError::unavailable(format!("could not reach the server: {m}")),
            other => AppError::new(500, "internal", other.to_string()),
        }
    }
}
