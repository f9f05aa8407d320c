{{/* Chart-wide helpers. */}}

{{- define "marquee.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-level prefix of every resource name. */}}
{{- define "marquee.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one service's resources: (dict "root" $ "name" "cart") */}}
{{- define "marquee.svcFullname" -}}
{{- printf "%s-%s" (include "marquee.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "marquee.chartLabel" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "marquee.commonLabels" -}}
helm.sh/chart: {{ include "marquee.chartLabel" . }}
app.kubernetes.io/part-of: marquee
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/* Selector labels of one service: (dict "root" $ "name" "cart") */}}
{{- define "marquee.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "marquee.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else -}}
{{- printf "%s-secrets" (include "marquee.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
Recursive deep merge: (list base override) -> JSON of base with override applied.
Maps merge key by key, everything else (lists, scalars, false, 0) in override replaces base.
Sprig's merge/mergeOverwrite cannot be used: they treat false and 0 as "unset".
*/}}
{{- define "marquee.deepMerge" -}}
{{- $base := deepCopy (index . 0) -}}
{{- $over := index . 1 | default dict -}}
{{- range $k, $v := $over -}}
{{- $cur := get $base $k -}}
{{- if and (kindIs "map" $v) (kindIs "map" $cur) -}}
{{- $_ := set $base $k (include "marquee.deepMerge" (list $cur $v) | fromJson) -}}
{{- else -}}
{{- $_ := set $base $k $v -}}
{{- end -}}
{{- end -}}
{{- toJson $base -}}
{{- end -}}

{{/* Effective settings of one service: (dict "root" $ "name" "cart") -> JSON */}}
{{- define "marquee.svcValues" -}}
{{- $over := index .root.Values.services .name | default dict -}}
{{- include "marquee.deepMerge" (list .root.Values.defaults $over) -}}
{{- end -}}

{{/* Env var holding a service's gRPC address: GRPC_ADDR_3P_CONNECTOR */}}
{{- define "marquee.grpcAddrVar" -}}
{{- printf "GRPC_ADDR_%s" (. | upper | replace "-" "_") -}}
{{- end -}}

{{/* Image reference: (dict "root" $ "image" .image "default" "marquee/cart") */}}
{{- define "marquee.image" -}}
{{- $repo := .image.repository | default .default -}}
{{- $reg := .root.Values.global.imageRegistry | default "" | trimSuffix "/" -}}
{{- if $reg -}}{{- $repo = printf "%s/%s" $reg $repo -}}{{- end -}}
{{- printf "%s:%s" $repo (.image.tag | default .root.Chart.AppVersion | toString) -}}
{{- end -}}

{{/* Hardened container securityContext. */}}
{{- define "marquee.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .runAsUser | int64 }}
runAsGroup: {{ .runAsGroup | int64 }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}
