//! One catalogue per language; each holds every text of `Texts` (the compiler refuses a
//! missing one).

mod ar;
mod de;
mod en;
mod es;
mod fr;
mod ja;
mod pt_br;

pub use ar::AR;
pub use de::DE;
pub use en::EN;
pub use es::ES;
pub use fr::FR;
pub use ja::JA;
pub use pt_br::PT_BR;
