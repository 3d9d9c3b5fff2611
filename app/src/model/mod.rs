//! Wire and view types shared by the JSON APIs, the server functions and the browser.
//! Pure: no database, no clock; compiles to wasm.

/// A closed set of SCREAMING_SNAKE wire values with `ALL`, `as_str` and `parse`.
macro_rules! wire_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name { $(#[serde(rename = $text)] $variant),+ }

        // Written by hand: the derive cannot see `serde(rename)` through a macro literal and
        // would publish the Rust variant names instead of the wire values.
        #[cfg(feature = "ssr")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }
        #[cfg(feature = "ssr")]
        impl utoipa::ToSchema for $name {}

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const fn as_str(self) -> &'static str { match self { $($name::$variant => $text),+ } }
            pub fn parse(s: &str) -> Option<Self> { match s { $($text => Some($name::$variant),)+ _ => None } }
        }
    };
}

pub mod account;
pub mod billing;
pub mod callback_delivery;
pub mod campaign;
pub mod delivery;
pub mod fraud;
pub mod language;
pub mod money;
pub mod overview;
pub mod postbacks;
pub mod publisher;
pub mod report;
pub mod survey;
pub mod user_identity;
pub mod validate;
pub mod wall_design;

pub use account::*;
pub use survey::credentials::*;
