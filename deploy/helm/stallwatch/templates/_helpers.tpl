{{/* Name of the chart, overridable. */}}
{{- define "stallwatch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Prefix of every resource name: the release name, plus the chart name unless it contains it. */}}
{{- define "stallwatch.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "stallwatch.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "stallwatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "stallwatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "stallwatch.labels" -}}
helm.sh/chart: {{ include "stallwatch.chart" . }}
{{ include "stallwatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: stallwatch
{{- end }}

{{- define "stallwatch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "stallwatch.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* registry/repository, then @digest if given, else :tag (default appVersion). */}}
{{- define "stallwatch.image" -}}
{{- $repository := .Values.image.repository }}
{{- if .Values.image.registry }}
{{- $repository = printf "%s/%s" .Values.image.registry .Values.image.repository }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{- define "stallwatch.leaseNamespace" -}}
{{- default .Release.Namespace .Values.leaderElection.namespace }}
{{- end }}

{{/* The verbs on DaemonSets: (list autoRollback daemonSetConditions). */}}
{{- define "stallwatch.daemonSetVerbs" -}}
{{- $rollback := index . 0 }}
{{- $conditions := index . 1 }}
{{- if $rollback }}["list", "watch", "get", "patch"]
{{- else if $conditions }}["list", "watch", "get"]
{{- else }}["list", "watch"]
{{- end }}
{{- end }}

{{/*
Permissions on namespaced resources, granted cluster-wide (all namespaces) or per watched
namespace: exactly the verbs the operator uses (its start-up check asks for the same list; a test
compares them). Nothing on secrets; writes on workloads only with auto-rollback.
*/}}
{{- define "stallwatch.namespacedRules" -}}
# Informers: list and watch, nothing else.
- apiGroups: ["apps"]
  resources: ["controllerrevisions"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
{{- $conditions := .Values.daemonSetConditions.enabled }}
{{- $rollback := .Values.autoRollback.enabled }}
# DaemonSets: read by the informers; "get" to read one afresh before the auto-rollback patches its
# template back or before the Stalled condition is written.
- apiGroups: ["apps"]
  resources: ["daemonsets"]
  verbs: {{ include "stallwatch.daemonSetVerbs" (list $rollback $conditions) }}
{{- if $conditions }}
# The Stalled condition: one JSON patch of its own entry in status.conditions.
- apiGroups: ["apps"]
  resources: ["daemonsets/status"]
  verbs: ["patch"]
{{- end }}
{{- if .Values.advancedDaemonSets.enabled }}
# OpenKruise Advanced DaemonSets, judged as DaemonSets are (written only by the auto-rollback and
# the Stalled condition).
- apiGroups: ["apps.kruise.io"]
  resources: ["daemonsets"]
  verbs: {{ include "stallwatch.daemonSetVerbs" (list $rollback $conditions) }}
{{- if $conditions }}
- apiGroups: ["apps.kruise.io"]
  resources: ["daemonsets/status"]
  verbs: ["patch"]
{{- end }}
{{- end }}
# RolloutStalls are created and deleted whole; only their status is rewritten. "get": a create or
# status write whose answer was lost (a GOAWAY; the client retried it into a 409) is read back.
- apiGroups: ["stallwatch.dev"]
  resources: ["rolloutstalls"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: ["stallwatch.dev"]
  resources: ["rolloutstalls/status"]
  verbs: ["update"]
# Events on the DaemonSet (core/v1 Events, as the operator writes them); "list" to read the
# controller's FailedCreate warnings, on demand only (a DaemonSet with a pod-less stuck node), never
# watched.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "list"]
{{- end }}
