//! Command line: `serve` (default), `migrate`, `user create`, `demo`, `reseal`, and, built
//! with the `bench` feature only, the benchmark's `bench-seed` and `bench-ceiling`.

use std::process::ExitCode;
use std::sync::Arc;

use app::domain::SystemClock;
use app::model::Role;
use clap::{Parser, Subcommand};

use crate::config::Settings;
use crate::startup::{self, Application};

#[derive(Parser, Debug)]
#[command(
    name = "server",
    version,
    about = "Rewarded-advertising and survey marketplace"
)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run migrations, then serve HTTP and the background workers (the default).
    Serve,
    /// Apply pending migrations and exit.
    Migrate,
    /// Manage accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Load a small, realistic demo data set and print the sign-in details.
    Demo,
    /// After a master-key rotation (new `APP_SECRET_KEY`, old one in
    /// `APP_SECRET_KEY_PREVIOUS`): re-seal every stored secret with the current key.
    Reseal,
    /// After upgrading a deployment that settled conversions before publisher earnings were
    /// kept in the ledger: give those conversions their earnings (pending, then released
    /// after the hold as usual). Safe to run again, and beside a running service.
    EarningsBackfill,
    /// Check the whole ledger (read-only; it reads every entry, so run it off-peak): balances
    /// equal their entries, every transaction sums to zero, no account is negative that may
    /// not be, every campaign's spend is mirrored and pending earnings match the conversions
    /// in the hold. Prints what it found; exits 1 when something is wrong.
    LedgerCheck,
    /// Load the benchmark data set (the demo plus thousands of live campaigns, sessions and
    /// history) and write the load generator's fixtures (scripts/bench.py runs it).
    /// Built with the `bench` feature only.
    #[cfg(feature = "bench")]
    BenchSeed(crate::bench::seed::SeedArgs),
    /// Serve the benchmark's ceiling routes (bare axum) on `--bind`. Built with the `bench`
    /// feature only.
    #[cfg(feature = "bench")]
    BenchCeiling,
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create an active account (advertisers created this way are approved); prints its id.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        password: String,
        /// admin, publisher or advertiser (superadmin too).
        #[arg(long, value_parser = parse_role)]
        role: Role,
        /// Company shown in the dashboards.
        #[arg(long, default_value = "Operator")]
        company: String,
    },
}

fn parse_role(s: &str) -> Result<Role, String> {
    Role::parse(&s.to_ascii_uppercase())
        .ok_or_else(|| format!("`{s}` is not admin, superadmin, publisher or advertiser"))
}

/// Entry point of the binary.
pub async fn main() -> ExitCode {
    let cli = Cli::parse();
    let _log = crate::telemetry::init(&cli.settings.log_format);
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = cli.settings;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let app = Application::build(settings, Arc::new(SystemClock)).await?;
            tracing::info!(port = app.port(), "listening");
            app.run_until_stopped().await?;
        }
        Command::Migrate => {
            let db = startup::connect(&settings).await?;
            startup::migrate(&db).await?;
            println!("migrations applied");
        }
        Command::User(UserCommand::Create {
            email,
            password,
            role,
            company,
        }) => {
            let ctx = startup::domain_context(&settings, Arc::new(SystemClock)).await?;
            let account =
                app::domain::accounts::create_active(&ctx, &email, &password, role, &company)
                    .await
                    .map_err(|e| anyhow::anyhow!("{} ({})", e.message, e.code))?;
            println!("{}", account.account_id);
        }
        Command::Reseal => {
            let ctx = startup::domain_context(&settings, Arc::new(SystemClock)).await?;
            let done = app::domain::reseal::reseal_all(&ctx)
                .await
                .map_err(|e| anyhow::anyhow!("{} ({})", e.message, e.code))?;
            println!(
                "resealed under key {}: {} callback keys, {} campaign credentials, {} survey API credentials, {} user identity secrets, {} payment details, {} mail letters, {} second-factor secrets, {} webhook secrets",
                ctx.keys.key_version(),
                done.callback_keys,
                done.campaign_credentials,
                done.survey_api_credentials,
                done.user_identity_secrets,
                done.payment_details,
                done.mail_letters,
                done.second_factors,
                done.webhook_secrets
            );
        }
        Command::EarningsBackfill => {
            let ctx = startup::domain_context(&settings, Arc::new(SystemClock)).await?;
            let done = app::domain::earnings::backfill::run(&ctx)
                .await
                .map_err(|e| anyhow::anyhow!("{} ({})", e.message, e.code))?;
            println!(
                "earnings backfilled: {} conversions of {} campaigns",
                done.conversions, done.campaigns
            );
            for (campaign, why) in &done.skipped {
                println!("left alone: campaign {campaign}: {why}");
            }
        }
        Command::LedgerCheck => {
            let ctx = startup::domain_context(&settings, Arc::new(SystemClock)).await?;
            let r = app::domain::billing::ledger::reconcile(&ctx.db)
                .await
                .map_err(|e| anyhow::anyhow!("{} ({})", e.message, e.code))?;
            let problems = [
                (
                    "accounts whose balance differs from their entries",
                    &r.drifted_accounts,
                ),
                (
                    "transactions that do not sum to zero",
                    &r.unbalanced_transactions,
                ),
                ("accounts below zero that may not be", &r.negative_accounts),
                (
                    "campaigns whose spend is not mirrored",
                    &r.mirror_mismatches,
                ),
                (
                    "publisher|campaign pending earnings unlike their conversions",
                    &r.pending_mismatches,
                ),
            ];
            let mut wrong = r.total_micros != 0;
            println!("ledger total: {} micros (0 expected)", r.total_micros);
            for (what, ids) in problems {
                println!("{what}: {}", ids.len());
                for id in ids.iter().take(20) {
                    println!("  {id}");
                }
                wrong |= !ids.is_empty();
            }
            anyhow::ensure!(!wrong, "the ledger does not add up");
            println!("ledger ok");
        }
        Command::Demo => {
            // The demo creates accounts with a published password.
            anyhow::ensure!(
                settings.environment != app::domain::Environment::Production,
                "`server demo` is refused in production: it creates accounts with a known password"
            );
            let ctx = startup::domain_context(&settings, Arc::new(SystemClock)).await?;
            crate::demo::load(&ctx, &settings).await?;
        }
        #[cfg(feature = "bench")]
        Command::BenchSeed(args) => {
            anyhow::ensure!(
                settings.environment != app::domain::Environment::Production,
                "`server bench-seed` is refused in production: it creates the demo accounts"
            );
            let ctx = startup::domain_context(&settings, Arc::new(SystemClock)).await?;
            crate::bench::seed::load(&ctx, &settings, &args).await?;
        }
        #[cfg(feature = "bench")]
        Command::BenchCeiling => crate::bench::ceiling::serve(settings.bind).await?,
    }
    Ok(())
}
