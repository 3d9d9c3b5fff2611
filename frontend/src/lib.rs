//! Hydration entry point: the browser takes over the server-rendered page.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Asynchronous hydration: a dashboard page is a lazy route whose code arrives as its own
    // wasm chunk, which hydration waits for (`hydrate_body` cannot).
    wasm_bindgen_futures::spawn_local(async {
        let body = leptos::prelude::document()
            .body()
            .expect("a page has a body");
        leptos::mount::hydrate_from_async(body.clone(), app::App)
            .await
            .forget();
        // A marker for browser tests and support: the page is interactive now.
        let _ = body.set_attribute("data-hydrated", "true");
    });
}
