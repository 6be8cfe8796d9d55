//! Whether the Bedrock runtime answers, without spending tokens: one
//! `ListAsyncInvokes` (a read-only runtime call, `GET /async-invoke`). The
//! runtime has no model list of its own, and the control plane's list says
//! nothing about the runtime: they are different hosts, and a VPC endpoint
//! or proxy often serves only the runtime.

use aws_sdk_bedrockruntime::Client;
use aws_sdk_bedrockruntime::error::SdkError;
use aws_sdk_bedrockruntime::operation::list_async_invokes::ListAsyncInvokesError;

use crate::error::ProviderError;

use super::errors;

/// `Ok` when the runtime answered over HTTP and did not reject the
/// credentials; `who` names it in the error.
pub(crate) async fn runtime(client: &Client, who: &str) -> Result<(), ProviderError> {
    match client.list_async_invokes().max_results(1).send().await {
        Ok(_) => Ok(()),
        Err(SdkError::ServiceError(context))
            if answers(context.err(), context.raw().status().as_u16()) =>
        {
            Ok(())
        }
        Err(error) => Err(errors::from_call(error, who)),
    }
}

/// An error answer that still shows a run would get through: access denied
/// to this one call (the signature was accepted; prompts need other
/// permissions), throttling, validation, or a proxy that serves only the
/// prompt paths (404). Other 401/403 answers reject the credentials (an
/// unknown key, a bad signature, an expired token), and 5xx is a runtime
/// that is not working; both would fail a run too.
fn answers(error: &ListAsyncInvokesError, status: u16) -> bool {
    matches!(error, ListAsyncInvokesError::AccessDeniedException(_))
        || !(status == 401 || status == 403 || status >= 500)
}
