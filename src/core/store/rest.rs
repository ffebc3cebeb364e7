//! `upstash` / `vercel-kv`: the Upstash REST protocol (Vercel KV speaks the same one).
//!
//! Each command is a `POST {url}` with `Authorization: Bearer {token}` and a JSON array body
//! (`["SET", key, value, "EX", ttl]`); the reply is `{"result": …}` or `{"error": "…"}`. JSON strings cannot carry
//! raw bytes, so records are stored as standard base64 text; a byte range maps onto a `GETRANGE` of whole base64
//! quanta (3 bytes = 4 characters). A record's header and a range are read in one request, through the protocol's
//! pipeline (`POST {url}/pipeline` with an array of commands; the reply is an array of `{"result": …}`).

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use zeroize::Zeroizing;

use super::{closed_error, head_and_range_apart, unavailable, Backend, BoxFuture};
use crate::core::error::{CoreError, CoreResult, ErrorCode};
use crate::core::store::config::{RestConfig, RestFlavor};

/// How long one connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one command may take end to end.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(8);

/// The REST backend.
pub struct RestBackend {
  flavor: RestFlavor,
  client: std::sync::Mutex<Option<reqwest::Client>>,
  url: String,
  token: Zeroizing<String>,
}

enum Failure {
  /// Could not talk to the service (network, timeout, 5xx, unreadable reply).
  Unreachable,
  /// The service answered with an error (auth, command refused, limits).
  Refused,
}

impl RestBackend {
  /// Builds the client; the service is checked with a `PING` so a wrong url or token fails at open.
  pub async fn connect(config: &RestConfig) -> CoreResult<Self> {
    let client = reqwest::Client::builder()
      .connect_timeout(CONNECT_TIMEOUT)
      .timeout(REQUEST_TIMEOUT)
      .build()
      .map_err(|_| CoreError::internal("The HTTP client could not be built."))?;
    let backend = Self {
      flavor: config.flavor,
      client: std::sync::Mutex::new(Some(client)),
      url: config.url.clone(),
      token: config.token.clone(),
    };
    match backend.command(json!(["PING"])).await {
      Ok(_) => Ok(backend),
      Err(Failure::Unreachable) => Err(backend.not_reached()),
      Err(Failure::Refused) => Err(
        CoreError::new(
          ErrorCode::Configuration,
          format!("The {} service refused the token.", backend.name()),
        )
        .with_remedy("Check the url and token (or their environment variables)."),
      ),
    }
  }

  fn name(&self) -> &'static str {
    match self.flavor {
      RestFlavor::Upstash => "Upstash",
      RestFlavor::VercelKv => "Vercel KV",
    }
  }

  fn not_reached(&self) -> CoreError {
    unavailable(format!(
      "The {} REST service could not be reached.",
      self.name()
    ))
    .with_remedy("Check the url and that the service is up; calls recover once it is back.")
  }

  fn refused(&self) -> CoreError {
    CoreError::new(
      ErrorCode::StoreWriteFailed,
      format!("The {} service refused to keep the answer.", self.name()),
    )
    .with_remedy(
      "Check the database's size and request limits; the answer is sent whole meanwhile.",
    )
  }

  fn client(&self) -> Option<reqwest::Client> {
    self
      .client
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
      .clone()
  }

  async fn command(&self, body: Value) -> Result<Value, Failure> {
    let reply = self.post(&self.url, &body).await?;
    if reply.get("error").is_some() {
      return Err(Failure::Refused);
    }
    reply.get("result").cloned().ok_or(Failure::Unreachable)
  }

  /// Sends `commands` in one request; their results in order.
  async fn pipeline(&self, commands: Value) -> Result<Vec<Value>, Failure> {
    let url = format!("{}/pipeline", self.url.trim_end_matches('/'));
    let Value::Array(replies) = self.post(&url, &commands).await? else {
      return Err(Failure::Unreachable);
    };
    replies
      .into_iter()
      .map(|reply| match reply.get("error") {
        Some(_) => Err(Failure::Refused),
        None => reply.get("result").cloned().ok_or(Failure::Unreachable),
      })
      .collect()
  }

  /// POSTs `body` to `url` with the token; the reply's JSON when the service accepted the request.
  async fn post(&self, url: &str, body: &Value) -> Result<Value, Failure> {
    let client = self.client().ok_or(Failure::Unreachable)?;
    let response = client
      .post(url)
      .bearer_auth(self.token.as_str())
      .json(body)
      .send()
      .await
      .map_err(|_| Failure::Unreachable)?;
    let status = response.status();
    if status.is_server_error() {
      return Err(Failure::Unreachable);
    }
    let reply: Value = response.json().await.map_err(|_| Failure::Unreachable)?;
    if !status.is_success() {
      return Err(Failure::Refused);
    }
    Ok(reply)
  }

  async fn read(&self, body: Value) -> CoreResult<Value> {
    if self.client().is_none() {
      return Err(closed_error());
    }
    self.command(body).await.map_err(|_| self.not_reached())
  }

  async fn write(&self, body: Value) -> CoreResult<Value> {
    if self.client().is_none() {
      return Err(closed_error());
    }
    self.command(body).await.map_err(|failure| match failure {
      Failure::Unreachable => self.not_reached(),
      Failure::Refused => self.refused(),
    })
  }
}

/// The base64 character range that covers bytes `[start, end)`, and where those bytes sit in its decoding.
fn base64_window(start: u64, end: u64) -> (u64, u64, usize) {
  let first_quantum = start / 3;
  let last_quantum = end.div_ceil(3);
  (
    first_quantum * 4,
    last_quantum * 4,
    (start - first_quantum * 3) as usize,
  )
}

/// `GETRANGE` over the base64 characters holding bytes `[start, end)`; `None` for an empty range.
fn getrange(key: &str, start: u64, end: u64) -> Option<Value> {
  if end <= start {
    return None;
  }
  let (from, to, _) = base64_window(start, end);
  Some(json!([
    "GETRANGE",
    key,
    from.to_string(),
    (to - 1).to_string()
  ]))
}

/// Bytes `[start, end)` out of the reply to [`getrange`]'s command (clamped; empty when missing or not ours).
fn window_bytes(reply: Value, start: u64, end: u64) -> Vec<u8> {
  let Value::String(text) = reply else {
    return Vec::new();
  };
  let Ok(bytes) = STANDARD.decode(text) else {
    return Vec::new();
  };
  let (_, _, skip) = base64_window(start, end);
  let want = usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX);
  bytes
    .get(skip..)
    .map_or_else(Vec::new, |rest| rest[..rest.len().min(want)].to_vec())
}

impl Backend for RestBackend {
  fn kind(&self) -> &'static str {
    match self.flavor {
      RestFlavor::Upstash => "upstash",
      RestFlavor::VercelKv => "vercel-kv",
    }
  }

  fn get(&self, key: String) -> BoxFuture<'_, CoreResult<Option<Vec<u8>>>> {
    Box::pin(async move {
      match self.read(json!(["GET", key])).await? {
        // A value that is not our base64 is not ours: it reads as not found.
        Value::String(text) => Ok(STANDARD.decode(text).ok()),
        _ => Ok(None),
      }
    })
  }

  fn get_range(&self, key: String, start: u64, end: u64) -> BoxFuture<'_, CoreResult<Vec<u8>>> {
    Box::pin(async move {
      let Some(command) = getrange(&key, start, end) else {
        return Ok(Vec::new());
      };
      Ok(window_bytes(self.read(command).await?, start, end))
    })
  }

  fn get_head_and_range(
    &self,
    key: String,
    head: u64,
    start: u64,
    end: u64,
  ) -> BoxFuture<'_, CoreResult<(Vec<u8>, Vec<u8>)>> {
    Box::pin(async move {
      let (Some(head_command), Some(range_command)) =
        (getrange(&key, 0, head), getrange(&key, start, end))
      else {
        return head_and_range_apart(self, key, head, start, end).await;
      };
      if self.client().is_none() {
        return Err(closed_error());
      }
      let replies = self
        .pipeline(json!([head_command, range_command]))
        .await
        .map_err(|_| self.not_reached())?;
      let [head_reply, range_reply]: [Value; 2] =
        replies.try_into().map_err(|_| self.not_reached())?;
      Ok((
        window_bytes(head_reply, 0, head),
        window_bytes(range_reply, start, end),
      ))
    })
  }

  fn set(&self, key: String, value: Vec<u8>, ttl_seconds: u64) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async move {
      let encoded = STANDARD.encode(&value);
      self
        .write(json!(["SET", key, encoded, "EX", ttl_seconds.to_string()]))
        .await
        .map(|_| ())
    })
  }

  fn delete(&self, key: String) -> BoxFuture<'_, CoreResult<bool>> {
    Box::pin(async move { Ok(self.write(json!(["DEL", key])).await?.as_i64().unwrap_or(0) > 0) })
  }

  fn probe(&self, _key: String) -> BoxFuture<'_, CoreResult<()>> {
    Box::pin(async move { self.read(json!(["PING"])).await.map(|_| ()) })
  }

  fn close(&self) -> BoxFuture<'_, ()> {
    Box::pin(async move {
      self
        .client
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    })
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn base64_windows_cover_the_bytes() {
    let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let encoded = STANDARD.encode(&data);
    for (start, end) in [
      (0u64, 1u64),
      (1, 2),
      (2, 7),
      (3, 6),
      (998, 1000),
      (500, 999),
      (0, 1000),
    ] {
      let (from, to, skip) = base64_window(start, end);
      let window = &encoded[from as usize..(to as usize).min(encoded.len())];
      let bytes = STANDARD.decode(window).unwrap();
      let want = (end - start) as usize;
      assert_eq!(
        &bytes[skip..skip + want],
        &data[start as usize..end as usize],
        "{start}..{end}"
      );
    }
  }
}
