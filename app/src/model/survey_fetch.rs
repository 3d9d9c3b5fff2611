//! Wire types of the publisher survey fetch (`POST /getallsurveys-api`), PascalCase as the
//! specification shows.
