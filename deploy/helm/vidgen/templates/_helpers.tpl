{{- define "vidgen.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "vidgen.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: api, worker, migrate, postgresql, minio. */}}
{{- define "vidgen.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "vidgen.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "vidgen.secretName" -}}
{{- if .Values.secrets.create -}}{{ include "vidgen.fullname" . }}{{- else -}}{{ .Values.secrets.existingSecret }}{{- end -}}
{{- end -}}

{{/* The environment of every vidgen container: settings from values, credentials from the secret. */}}
{{- define "vidgen.env" -}}
- name: HOST
  value: "0.0.0.0"
- name: PORT
  value: "8080"
- name: VIDGEN_DATA_DIR
  value: /data
{{- range $name, $value := .Values.config }}
{{- if and (eq $name "VIDGEN_S3_ENDPOINT") $.Values.minio.enabled }}
- name: VIDGEN_S3_ENDPOINT
  value: {{ printf "http://%s-minio:9000" (include "vidgen.fullname" $) | quote }}
{{- else if ne (toString $value) "" }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "vidgen.envFrom" -}}
- secretRef:
    name: {{ include "vidgen.secretName" . }}
{{- end -}}

{{/* The writable paths of a read-only root filesystem. */}}
{{- define "vidgen.volumes" -}}
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- end -}}
{{- define "vidgen.volumeMounts" -}}
- name: data
  mountPath: /data
- name: tmp
  mountPath: /tmp
{{- end -}}
