//! One full-read query at a time per owner, so that one session's costly queries queue behind each other instead
//! of taking every core from other sessions' queries (reads through the path index and kept pages do not wait).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::core::error::{CoreError, CoreResult};
use crate::core::seal::Owner;

/// The owners with a query running or waiting, each with its one turn.
#[derive(Default)]
pub struct OwnerTurns {
  lanes: Mutex<HashMap<Owner, Arc<Semaphore>>>,
}

impl OwnerTurns {
  /// Waits for `owner`'s turn; the turn passes on when the permit is dropped.
  pub(crate) async fn take(&self, owner: &Owner) -> CoreResult<OwnedSemaphorePermit> {
    let lane = {
      let mut lanes = self
        .lanes
        .lock()
        .map_err(|_| CoreError::internal("The query turns were poisoned."))?;
      // Lanes nobody holds or waits for are dropped, so the map stays as small as the owners now querying.
      lanes.retain(|_, lane| Arc::strong_count(lane) > 1);
      lanes
        .entry(owner.clone())
        .or_insert_with(|| Arc::new(Semaphore::new(1)))
        .clone()
    };
    lane
      .acquire_owned()
      .await
      .map_err(|_| CoreError::internal("A query turn closed."))
  }

  /// Owners with a lane now.
  #[cfg(test)]
  pub(crate) fn lanes(&self) -> usize {
    self.lanes.lock().map(|lanes| lanes.len()).unwrap_or(0)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[tokio::test]
  async fn one_turn_per_owner_and_owners_apart() {
    let turns = OwnerTurns::default();
    let me = Owner::new(Some("s".into()), None);
    let other = Owner::new(Some("t".into()), None);
    let first = turns.take(&me).await.expect("free");
    // Another owner does not wait for mine.
    let theirs = turns.take(&other).await.expect("free");
    // My second query waits until my first is done.
    let waiting = tokio::time::timeout(std::time::Duration::from_millis(20), turns.take(&me)).await;
    assert!(waiting.is_err(), "a second turn while the first is held");
    drop(first);
    let second = tokio::time::timeout(std::time::Duration::from_millis(500), turns.take(&me))
      .await
      .expect("the turn passed on")
      .expect("open");
    drop((second, theirs));
    // Idle lanes go at the next take.
    let _again = turns.take(&me).await.expect("free");
    assert_eq!(turns.lanes(), 1);
  }
}
