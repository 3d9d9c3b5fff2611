//! Closed sets of text values: the statuses, states and kinds the tables store, and every
//! other wire enum of the service (declared with [`wire_enum!`](crate::wire_enum)).
//!
//! A column of one of these types still holds its text (no data migration, and an operator
//! reading the database sees `LIVE`, not `3`), but a row read from the database holds the
//! variant, so code compares `m.status != CampaignStatus::Draft` and a typo cannot compile.
//! A stored value outside the set is a read error naming the type and the value.
//!
//! They live here, below the tables, because a column's type must be known where the table
//! is declared; `app::model` re-exports each one beside the wire types that use it. This
//! module compiles without the database (`default-features = false`), so the browser build
//! shares the same definitions.

pub mod accounts;
pub mod billing;
pub mod callbacks;
pub mod campaigns;
pub mod conversions;
pub mod payouts;
pub mod publisher;
pub mod surveys;

pub use accounts::*;
pub use billing::*;
pub use callbacks::*;
pub use campaigns::*;
pub use conversions::*;
pub use payouts::*;
pub use publisher::*;
pub use surveys::*;

/// Declares a closed set of text values: an enum with `ALL`, `as_str` (a `const fn`, so the
/// texts can be constants), `parse` (exact text), `Display` and serde as the texts. With the crate's
/// `openapi` feature it is a named OpenAPI schema (a string enum with the doc comment as
/// its description); with `db` it can be a column (stored as its text). The one mechanism
/// for statuses, kinds and wire codes, in this crate and in `app`.
#[macro_export]
macro_rules! wire_enum {
    // The doc comment is collected apart from the other attributes (a description for the
    // schema), one attribute at a time: a pattern with both repetitions side by side would
    // be ambiguous.
    (@attrs [$($doc:literal)*] [$($attr:tt)*] #[doc = $d:literal] $($rest:tt)*) => {
        $crate::wire_enum!(@attrs [$($doc)* $d] [$($attr)*] $($rest)*);
    };
    (@attrs [$($doc:literal)*] [$($attr:tt)*] #[$m:meta] $($rest:tt)*) => {
        $crate::wire_enum!(@attrs [$($doc)*] [$($attr)* #[$m]] $($rest)*);
    };
    (
        @attrs [$($doc:literal)*] [$($attr:tt)*]
        $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }
    ) => {
        $(#[doc = $doc])*
        $($attr)*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        pub enum $name { $($(#[$vm])* #[serde(rename = $text)] $variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        $crate::__wire_enum_schema!($name [$($doc),*] [$($text),+]);
        $crate::__wire_enum_column!($name);
    };
    ($($input:tt)+) => {
        $crate::wire_enum!(@attrs [] [] $($input)+);
    };
}

/// The OpenAPI schema of a [`wire_enum!`]. Written by hand: the derive cannot see
/// `serde(rename)` through a macro literal and would publish the Rust variant names.
#[cfg(feature = "openapi")]
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_enum_schema {
    ($name:ident [$($doc:literal),*] [$($text:literal),+]) => {
        impl $crate::__private::utoipa::PartialSchema for $name {
            fn schema() -> $crate::__private::utoipa::openapi::RefOr<
                $crate::__private::utoipa::openapi::schema::Schema,
            > {
                let lines: &[&str] = &[$($doc),*];
                let description = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n");
                $crate::__private::utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type($crate::__private::utoipa::openapi::schema::Type::String)
                    .description((!description.is_empty()).then_some(description))
                    .enum_values(Some([$($text),+]))
                    .into()
            }
        }
        impl $crate::__private::utoipa::ToSchema for $name {}
    };
}

#[cfg(not(feature = "openapi"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_enum_schema {
    ($($t:tt)*) => {};
}

/// A [`wire_enum!`] as a column type, stored as its text (what `DeriveValueType` with
/// `value_type = "String"` writes, with the parse error naming the type and the value).
#[cfg(feature = "db")]
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_enum_column {
    ($name:ident) => {
        impl ::core::convert::From<$name> for $crate::__private::sea_orm::Value {
            fn from(v: $name) -> Self {
                $crate::__private::sea_orm::Value::String(Some(v.as_str().to_owned()))
            }
        }
        impl $crate::__private::sea_orm::TryGetable for $name {
            fn try_get_by<I: $crate::__private::sea_orm::ColIdx>(
                res: &$crate::__private::sea_orm::QueryResult,
                idx: I,
            ) -> ::core::result::Result<Self, $crate::__private::sea_orm::TryGetError> {
                let text =
                    <String as $crate::__private::sea_orm::TryGetable>::try_get_by(res, idx)?;
                $name::parse(&text).ok_or_else(|| {
                    $crate::__private::sea_orm::TryGetError::DbErr(
                        $crate::__private::sea_orm::DbErr::Type($crate::values::unknown(
                            stringify!($name),
                            &text,
                        )),
                    )
                })
            }
        }
        impl $crate::__private::sea_orm::sea_query::ValueType for $name {
            fn try_from(
                v: $crate::__private::sea_orm::Value,
            ) -> ::core::result::Result<Self, $crate::__private::sea_orm::sea_query::ValueTypeErr>
            {
                let text =
                    <String as $crate::__private::sea_orm::sea_query::ValueType>::try_from(v)?;
                $name::parse(&text).ok_or($crate::__private::sea_orm::sea_query::ValueTypeErr)
            }
            fn type_name() -> String {
                stringify!($name).to_owned()
            }
            fn array_type() -> $crate::__private::sea_orm::sea_query::ArrayType {
                $crate::__private::sea_orm::sea_query::ArrayType::String
            }
            fn column_type() -> $crate::__private::sea_orm::sea_query::ColumnType {
                $crate::__private::sea_orm::sea_query::ColumnType::String(
                    $crate::__private::sea_orm::sea_query::StringLen::None,
                )
            }
        }
        impl $crate::__private::sea_orm::sea_query::Nullable for $name {
            fn null() -> $crate::__private::sea_orm::Value {
                $crate::__private::sea_orm::Value::String(None)
            }
        }
        impl $crate::__private::sea_orm::IntoActiveValue<$name> for $name {
            fn into_active_value(self) -> $crate::__private::sea_orm::ActiveValue<$name> {
                $crate::__private::sea_orm::ActiveValue::Set(self)
            }
        }
    };
}

#[cfg(not(feature = "db"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_enum_column {
    ($($t:tt)*) => {};
}

/// The read error of a stored value outside its set (bounded: a long value is cut).
#[cfg(feature = "db")]
#[doc(hidden)]
pub fn unknown(type_name: &str, text: &str) -> String {
    let shown: String = text.chars().take(40).collect();
    format!("{shown:?} is not a {type_name}")
}

#[cfg(test)]
mod tests {
    crate::wire_enum!(
        /// A test set.
        Sample { One = "ONE", TwoWords = "TWO_WORDS" }
    );

    #[test]
    fn texts_round_trip_and_nothing_else_parses() {
        for v in Sample::ALL {
            assert_eq!(Sample::parse(v.as_str()), Some(*v));
        }
        assert_eq!(Sample::parse("one"), None);
        assert_eq!(
            serde_json::to_string(&Sample::TwoWords).unwrap(),
            "\"TWO_WORDS\""
        );
    }

    #[cfg(feature = "db")]
    #[test]
    fn a_column_value_is_its_text() {
        use sea_orm::sea_query::ValueType;
        let v: sea_orm::Value = Sample::TwoWords.into();
        assert_eq!(v, sea_orm::Value::String(Some("TWO_WORDS".to_owned())));
        assert_eq!(
            <Sample as ValueType>::try_from(v).ok(),
            Some(Sample::TwoWords)
        );
        let bad = sea_orm::Value::String(Some("three".to_owned()));
        assert!(<Sample as ValueType>::try_from(bad).is_err());
        assert_eq!(
            super::unknown("Sample", "three"),
            "\"three\" is not a Sample"
        );
    }
}
