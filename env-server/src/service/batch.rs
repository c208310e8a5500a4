//! StepBatch and ResetBatch: items run in parallel (rayon) inside one blocking call, errors
//! inline, items in request order; and the columnar encoding of batches —
//! `StepBatchRequest.columnar_steps` decoded into step requests ([`columnar_steps`]), and
//! `columnar_response`: each worker takes its item's tensors and mask out as a [`Row`]
//! ([`take_row`]), and [`batch_columns`] copies the rows into one `BatchColumns` (an item of
//! other shapes gets its row back, [`restore_row`]).
use super::error::error_to_proto;
use super::exec::check_deadline;
use super::sessions::check_episode_id;
use super::{EnvironmentService, ServiceError};
use crate::proto;
use std::collections::HashMap;
use std::time::Instant;

impl EnvironmentService {
    /// StepBatch, synchronously: steps then resets, in parallel (rayon), errors inline, items
    /// in request order. Items not started before `deadline` fail with DEADLINE_EXCEEDED; a
    /// step of an episode an earlier step item names fails with FAILED_PRECONDITION
    /// ([`ServiceError::SteppedTwice`]) without running.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] when the batch has too many items.
    pub fn step_batch_blocking(
        &self,
        req: &proto::StepBatchRequest,
        deadline: Option<Instant>,
    ) -> Result<proto::BatchResponse, ServiceError> {
        use rayon::prelude::*;
        let columnar = columnar_steps(req.columnar_steps.as_ref())?;
        let counts = [
            ("steps", req.steps.len()),
            ("columnar_steps", columnar.len()),
            ("resets", req.resets.len()),
            ("close_episode_ids", req.close_episode_ids.len()),
        ];
        let n: usize = counts.iter().map(|(_, k)| k).sum();
        let max = self.inner.config.max_batch_items;
        if n > max {
            let parts: Vec<String> = counts
                .iter()
                .filter(|(_, k)| *k > 0)
                .map(|(name, k)| format!("{name} {k}"))
                .collect();
            let field = counts
                .iter()
                .max_by_key(|(_, k)| *k)
                .map_or("steps", |(name, _)| name);
            return Err(ServiceError::invalid(
                field,
                format!("{n} items ({}): at most {max} per batch", parts.join(", ")),
            ));
        }
        for (i, id) in req.close_episode_ids.iter().enumerate() {
            check_episode_id(id).map_err(|e| match e {
                ServiceError::InvalidArgument { reason, .. } => {
                    ServiceError::invalid(format!("close_episode_ids[{i}]"), reason)
                }
                other => other,
            })?;
        }
        let mut closed = 0u32;
        for id in &req.close_episode_ids {
            let close = proto::CloseRequest {
                episode_id: id.clone(),
            };
            if self.close_episode(&close).is_ok() {
                closed += 1;
            }
        }
        // With a columnar response, each worker also takes its item's tensors and mask out
        // in column encoding (the conversion runs in parallel; `batch_columns` only copies).
        let columnar_response = req.columnar_response;
        let compact = columnar_response && req.compact_columns;
        let finish = |mut item: proto::BatchItem| {
            let row = if columnar_response {
                take_row(&mut item, compact)
            } else {
                None
            };
            (item, row)
        };
        // One step per episode: a later item of an episode already stepped fails without
        // running (in parallel, which of two would run first is not defined). Only an item
        // naming an open episode counts as its step: a malformed or unknown id fails on its
        // own, every time.
        let mut first: HashMap<&str, String> = HashMap::new();
        let twice: Vec<Option<ServiceError>> = req
            .steps
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("steps[{i}]"), r))
            .chain(
                columnar
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (format!("columnar_steps[{i}]"), r)),
            )
            .map(|(field, r)| match first.get(r.episode_id.as_str()) {
                Some(f) => Some(ServiceError::SteppedTwice {
                    episode: r.episode_id.clone(),
                    first: f.clone(),
                }),
                None => {
                    if self.session(&r.episode_id).is_ok() {
                        first.insert(&r.episode_id, field);
                    }
                    None
                }
            })
            .collect();
        let steps = req
            .steps
            .par_iter()
            .chain(columnar.par_iter())
            .zip(twice)
            .map(|(r, twice)| {
                finish(batch_item(match twice {
                    Some(e) => Err(e),
                    None => check_deadline(deadline).and_then(|()| self.step_blocking(r)),
                }))
            });
        let resets = req.resets.par_iter().map(|r| {
            finish(batch_item(
                check_deadline(deadline).and_then(|()| self.reset_blocking(r)),
            ))
        });
        let mut done: Vec<(proto::BatchItem, Option<Row>)> = steps.collect();
        done.par_extend(resets);
        let (mut items, rows): (Vec<proto::BatchItem>, Vec<Option<Row>>) = done.into_iter().unzip();
        let columns = columnar_response.then(|| batch_columns(&mut items, rows, compact));
        Ok(proto::BatchResponse {
            items,
            columns,
            closed,
        })
    }
}

/// `StepBatchRequest.columnar_steps` as step requests (one action id each).
///
/// # Errors
/// `INVALID_ARGUMENT` when the three columns differ in length.
fn columnar_steps(
    c: Option<&proto::ColumnarSteps>,
) -> Result<Vec<proto::StepRequest>, ServiceError> {
    let Some(c) = c else {
        return Ok(Vec::new());
    };
    let n = c.episode_ids.len();
    if c.decision_ids.len() != n || c.action_ids.len() != n {
        return Err(ServiceError::invalid(
            "columnar_steps",
            format!(
                "episode_ids, decision_ids and action_ids must have the same length (got {n}, {}, {})",
                c.decision_ids.len(),
                c.action_ids.len()
            ),
        ));
    }
    Ok((0..n)
        .map(|i| proto::StepRequest {
            episode_id: c.episode_ids[i].clone(),
            decision_id: c.decision_ids[i],
            action_ids: vec![c.action_ids[i]],
            ..Default::default()
        })
        .collect())
}

/// Move every item's tensors, mask, reward and end flags into one [`proto::BatchColumns`]
/// (`StepBatchRequest.columnar_response`); the items keep the rest of their state. The
/// columns take the shapes of the first item with tensors; an item of another shape (a batch
/// mixing scenarios) keeps its tensors and mask in its `EpisodeState` and has zeros in the
/// tensor and mask columns — nothing is refused after the work is done.
/// One item's tensors and mask in column encoding (planes one byte per value, features
/// little-endian `f32` bytes), taken out of its `EpisodeState` by [`take_row`] in the worker
/// that stepped it, so that the conversion runs in parallel.
struct Row {
    plane_shape: Vec<u32>,
    feature_shape: Vec<u32>,
    space: u32,
    planes: Vec<u8>,
    features: Vec<u8>,
    mask: Vec<u8>,
    /// The mask as bits (compact columns only; see `BatchColumns.action_mask_bits`).
    mask_bits: Vec<u8>,
}

impl Row {
    fn same_shape(&self, other: &Row) -> bool {
        self.plane_shape == other.plane_shape
            && self.feature_shape == other.feature_shape
            && self.space == other.space
    }
}

/// The item's tensors and mask as a [`Row`] (removed from the state), if it has tensors;
/// with `compact`, the mask's bits too.
fn take_row(item: &mut proto::BatchItem, compact: bool) -> Option<Row> {
    let Some(proto::batch_item::Result::State(st)) = &mut item.result else {
        return None;
    };
    let t = st.tensors.take()?;
    let per_plane = t
        .plane_shape
        .get(1..3)
        .map_or(1, |s| s.iter().product::<u32>()) as usize;
    let mut planes = vec![0u8; t.planes.len()];
    pf1e_engine::observe::tensor::planes_to_u8(&t.planes, per_plane, &mut planes);
    let mut features = Vec::with_capacity(t.features.len() * 4);
    for v in &t.features {
        features.extend_from_slice(&v.to_le_bytes());
    }
    let mask = std::mem::take(&mut st.action_mask);
    let mask_bits = if compact {
        let mut bits = vec![0u8; mask.len().div_ceil(8)];
        for (j, &m) in mask.iter().enumerate() {
            bits[j / 8] |= u8::from(m != 0) << (j % 8);
        }
        bits
    } else {
        Vec::new()
    };
    Some(Row {
        plane_shape: t.plane_shape,
        feature_shape: t.feature_shape,
        space: st.action_space_size,
        planes,
        features,
        mask,
        mask_bits,
    })
}

/// Put a row that does not fit the batch's columns back into its item, as it was.
fn restore_row(item: &mut proto::BatchItem, row: Row) {
    let Some(proto::batch_item::Result::State(st)) = &mut item.result else {
        return;
    };
    let per_plane = row
        .plane_shape
        .get(1..3)
        .map_or(1, |s| s.iter().product::<u32>()) as usize;
    let divisors = pf1e_engine::observe::tensor::PLANE_DIVISORS;
    let planes = row
        .planes
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            f32::from(b) / f32::from(divisors[(i / per_plane.max(1)).min(divisors.len() - 1)])
        })
        .collect();
    let features = row
        .features
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    st.tensors = Some(proto::TensorObservation {
        plane_shape: row.plane_shape,
        planes,
        feature_shape: row.feature_shape,
        features,
    });
    st.action_mask = row.mask;
}

/// The columns of a batch whose items' tensors were taken out as `rows` (same order): the
/// rows of the first row's shapes go into the columns; an item of another scenario's shapes
/// (or without tensors) keeps its tensors and mask, and its column rows stay zero. The
/// reward, end-flag, decision (id, actor, round, kind) and first-result columns are filled
/// for every item that has a state.
/// With `compact`, the columns leave out the terrain planes and carry the masks as bits
/// (`StepBatchRequest.compact_columns`).
fn batch_columns(
    items: &mut [proto::BatchItem],
    rows: Vec<Option<Row>>,
    compact: bool,
) -> proto::BatchColumns {
    use proto::batch_item::Result as R;
    let first = rows.iter().flatten().next();
    let (plane_shape, feature_shape, space) = first.map_or_else(Default::default, |r| {
        (r.plane_shape.clone(), r.feature_shape.clone(), r.space)
    });
    let (np, nf, na) = first.map_or((0, 0, 0), |r| {
        (r.planes.len(), r.features.len(), r.space as usize)
    });
    // What a row puts in the columns: planes from `skip` on, masks as bytes or bits.
    let cells: usize = plane_shape.iter().skip(1).map(|&d| d as usize).product();
    let skip = if compact && !plane_shape.is_empty() {
        (pf1e_engine::observe::tensor::TERRAIN_PLANES * cells).min(np)
    } else {
        0
    };
    let (mask_bytes, bit_bytes) = if compact {
        (0, na.div_ceil(8))
    } else {
        (na, 0)
    };
    let cp = np - skip;
    let n = items.len();
    let mut c = proto::BatchColumns {
        items: n as u32,
        planes: vec![0; n * cp],
        plane_shape,
        features: vec![0; n * nf],
        feature_shape,
        action_masks: vec![0; n * mask_bytes],
        action_mask_bits: vec![0; n * bit_bytes],
        first_plane: if skip > 0 {
            pf1e_engine::observe::tensor::TERRAIN_PLANES as u32
        } else {
            0
        },
        action_space_size: space,
        rewards: vec![0.0; n],
        terminated: vec![0; n],
        truncated: vec![0; n],
        decision_ids: vec![0; n],
        actor_indices: vec![-1; n],
        rounds: vec![0; n],
        result_ok: vec![0; n],
        result_codes: vec![proto::ResultCode::Unspecified as i32; n],
        errors: 0,
        decision_kinds: vec![0; n],
    };
    let template = rows.iter().flatten().next().map(|r| Row {
        plane_shape: r.plane_shape.clone(),
        feature_shape: r.feature_shape.clone(),
        space: r.space,
        planes: Vec::new(),
        features: Vec::new(),
        mask: Vec::new(),
        mask_bits: Vec::new(),
    });
    for (i, (it, row)) in items.iter_mut().zip(rows).enumerate() {
        if let Some(row) = row {
            let fits = template.as_ref().is_some_and(|t| t.same_shape(&row))
                && row.planes.len() == np
                && row.features.len() == nf
                && row.mask.len() == na;
            if fits {
                c.planes[i * cp..(i + 1) * cp].copy_from_slice(&row.planes[skip..]);
                c.features[i * nf..(i + 1) * nf].copy_from_slice(&row.features);
                if compact {
                    c.action_mask_bits[i * bit_bytes..(i + 1) * bit_bytes]
                        .copy_from_slice(&row.mask_bits);
                } else {
                    c.action_masks[i * na..(i + 1) * na].copy_from_slice(&row.mask);
                }
            } else {
                // Another scenario's shapes: the item keeps what it had.
                restore_row(it, row);
            }
        }
        let Some(R::State(st)) = &it.result else {
            c.errors += 1;
            continue;
        };
        c.rewards[i] = st.reward;
        c.terminated[i] = u8::from(st.terminated);
        c.truncated[i] = u8::from(st.truncated);
        match (&st.decision, &st.outcome) {
            (Some(d), _) => {
                c.decision_ids[i] = d.decision_id;
                c.actor_indices[i] = i32::try_from(d.actor_index).unwrap_or(-1);
                c.rounds[i] = d.round;
                c.decision_kinds[i] = u8::try_from(d.kind).unwrap_or(0);
            }
            (None, Some(o)) => c.rounds[i] = o.rounds,
            (None, None) => {}
        }
        let first = st.results.first();
        c.result_ok[i] = u8::from(first.is_none_or(|r| r.ok));
        c.result_codes[i] = first.map_or(proto::ResultCode::Ok as i32, |r| r.code);
    }
    c
}

fn batch_item(r: Result<proto::EpisodeState, ServiceError>) -> proto::BatchItem {
    use proto::batch_item::Result as R;
    proto::BatchItem {
        result: Some(match r {
            Ok(s) => R::State(s),
            Err(e) => R::Error(error_to_proto(e)),
        }),
    }
}
