//! `impl Environment for EnvironmentService`: every gRPC method, each a thin shell that picks
//! how its work runs (an engine job on the blocking pool, creating episodes: see `exec`) around
//! the synchronous body in `requests`, `batch`, `spec`, `stream`, `transcript` or `evaluate`.
use super::exec::{blocking, blocking_creating, deadline_of};
use super::stream::SessionResponseStream;
use super::{evaluate, EnvironmentService, Principal};
use crate::proto::{self, environment_server::Environment};
use tonic::{Request, Response};

#[tonic::async_trait]
impl Environment for EnvironmentService {
    async fn get_spec(
        &self,
        request: Request<proto::GetSpecRequest>,
    ) -> Result<Response<proto::Spec>, tonic::Status> {
        self.unary(request, Self::get_spec_blocking).await
    }

    async fn list_scenarios(
        &self,
        request: Request<proto::ListScenariosRequest>,
    ) -> Result<Response<proto::ListScenariosResponse>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        blocking(&svc.clone(), deadline_of(&request), move || {
            Ok(proto::ListScenariosResponse {
                scenarios: svc
                    .inner
                    .scenarios
                    .list()
                    .into_iter()
                    .map(Into::into)
                    .collect(),
            })
        })
        .await
        .map(Response::new)
    }

    async fn reset(
        &self,
        request: Request<proto::ResetRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || svc.reset_blocking(&req))
            .await
            .map(Response::new)
    }

    async fn step(
        &self,
        request: Request<proto::StepRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        self.unary(request, Self::step_blocking).await
    }

    async fn observe(
        &self,
        request: Request<proto::ObserveRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        self.unary(request, Self::observe_blocking).await
    }

    async fn close(
        &self,
        request: Request<proto::CloseRequest>,
    ) -> Result<Response<proto::CloseResponse>, tonic::Status> {
        self.for_client(Principal::of(&request))
            .close_episode(request.get_ref())
            .map(Response::new)
            .map_err(tonic::Status::from)
    }

    async fn validate(
        &self,
        request: Request<proto::ValidateRequest>,
    ) -> Result<Response<proto::ActionResult>, tonic::Status> {
        self.unary(request, Self::validate_blocking).await
    }

    async fn snapshot(
        &self,
        request: Request<proto::SnapshotRequest>,
    ) -> Result<Response<proto::SnapshotResponse>, tonic::Status> {
        self.unary(request, Self::snapshot_blocking).await
    }

    async fn restore(
        &self,
        request: Request<proto::RestoreRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.restore_blocking(&req).map(|(_, s)| s)
        })
        .await
        .map(Response::new)
    }

    async fn fork(
        &self,
        request: Request<proto::ForkRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.fork_blocking(&req).map(|(_, s)| s)
        })
        .await
        .map(Response::new)
    }

    async fn export_transcript(
        &self,
        request: Request<proto::ExportTranscriptRequest>,
    ) -> Result<Response<proto::Transcript>, tonic::Status> {
        self.unary(request, Self::export_transcript_blocking).await
    }

    async fn replay_transcript(
        &self,
        request: Request<proto::ReplayTranscriptRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.replay_transcript_blocking(&req).map(|(_, s)| s)
        })
        .await
        .map(Response::new)
    }

    async fn describe(
        &self,
        request: Request<proto::DescribeRequest>,
    ) -> Result<Response<proto::EpisodeDescription>, tonic::Status> {
        self.unary(request, Self::describe_blocking).await
    }

    async fn stats(
        &self,
        request: Request<proto::StatsRequest>,
    ) -> Result<Response<proto::StatsResponse>, tonic::Status> {
        Ok(Response::new(
            self.for_client(Principal::of(&request)).stats(),
        ))
    }

    async fn step_batch(
        &self,
        request: Request<proto::StepBatchRequest>,
    ) -> Result<Response<proto::BatchResponse>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        // Items come steps, columnar steps, then resets: only the resets create episodes
        // (closed again if the call finishes after its deadline).
        let first_reset = req.steps.len()
            + req
                .columnar_steps
                .as_ref()
                .map_or(0, |c| c.episode_ids.len());
        blocking_creating(svc.clone(), deadline, first_reset, move || {
            svc.step_batch_blocking(&req, deadline)
        })
        .await
        .map(Response::new)
    }

    async fn reset_batch(
        &self,
        request: Request<proto::ResetBatchRequest>,
    ) -> Result<Response<proto::BatchResponse>, tonic::Status> {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = proto::StepBatchRequest {
            steps: Vec::new(),
            resets: request.into_inner().resets,
            ..Default::default()
        };
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.step_batch_blocking(&req, deadline)
        })
        .await
        .map(Response::new)
    }

    type SessionStream = SessionResponseStream;

    async fn session(
        &self,
        request: Request<tonic::Streaming<proto::SessionRequest>>,
    ) -> Result<Response<Self::SessionStream>, tonic::Status> {
        let svc = self.for_client(Principal::of(&request));
        Ok(Response::new(svc.session_stream(request.into_inner())?))
    }

    async fn echo(
        &self,
        request: Request<proto::EchoRequest>,
    ) -> Result<Response<proto::EchoResponse>, tonic::Status> {
        Ok(Response::new(proto::EchoResponse {
            payload: request.into_inner().payload,
        }))
    }

    type EvaluateStream = evaluate::EvaluateResponseStream;

    async fn evaluate(
        &self,
        request: Request<proto::EvaluateRequest>,
    ) -> Result<Response<Self::EvaluateStream>, tonic::Status> {
        self.for_client(Principal::of(&request))
            .evaluate_call(request)
            .await
    }

    async fn explain(
        &self,
        request: Request<proto::ExplainRequest>,
    ) -> Result<Response<proto::ExplainResponse>, tonic::Status> {
        self.unary(request, Self::explain_blocking).await
    }
}
