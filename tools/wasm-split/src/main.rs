//! `marketplace-wasm-split <input.wasm> <out-dir> <main.wasm> <name>`: splits the wasm that
//! cargo built for the browser at its `#[lazy]` split points (the library cargo-leptos uses),
//! writing the chunks and their loader into `<out-dir>`, the main module (for wasm-bindgen)
//! to `<main.wasm>`, and `__wasm_split_manifest.json`, which Leptos' `HydrationScripts`
//! reads to preload the chunks of the page it renders.

use std::path::Path;
use std::process::ExitCode;

/// The loader's module name: the one `HydrationScripts` names in its `modulepreload` when
/// the bundle's file names carry no hash (ours live under `/pkg/<hash>/` instead).
const LINK_NAME: &str = "./__wasm_split.______________________.js";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, main_out, name] = args.as_slice() else {
        eprintln!("usage: marketplace-wasm-split <input.wasm> <out-dir> <main.wasm> <name>");
        return ExitCode::from(2);
    };
    match split(Path::new(input), Path::new(out_dir), Path::new(main_out), name) {
        Ok(chunks) => {
            println!("wasm-split: {chunks} chunks in {out_dir}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("wasm-split: {e}");
            ExitCode::FAILURE
        }
    }
}

fn split(input: &Path, out_dir: &Path, main_out: &Path, name: &str) -> Result<usize, String> {
    let wasm = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
    let main_module = format!("./{name}.js");
    let mut opts = wasm_split_cli_support::Options::new(&wasm);
    opts.output_dir = out_dir;
    opts.main_out_path = main_out;
    opts.main_module = &main_module;
    opts.link_name = LINK_NAME;
    let result = wasm_split_cli_support::transform(opts).map_err(|e| format!("{e:?}"))?;
    let manifest = serde_json::to_string_pretty(&result.prefetch_map).map_err(|e| e.to_string())?;
    std::fs::write(out_dir.join("__wasm_split_manifest.json"), manifest).map_err(|e| e.to_string())?;
    Ok(result.split_modules.len())
}
