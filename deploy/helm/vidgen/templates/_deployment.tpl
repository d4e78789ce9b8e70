{{/* One vidgen Deployment: .root is the chart context, .component "api" or "worker", .spec its values. */}}
{{- define "vidgen.deployment" -}}
{{- $root := .root -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "vidgen.fullname" $root }}-{{ .component }}
  labels:
    {{- include "vidgen.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- if not (and (eq .component "api") .spec.autoscaling.enabled) }}
  {{- if not (and (eq .component "worker") .spec.keda.enabled) }}
  replicas: {{ .spec.replicas }}
  {{- end }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "vidgen.selector" (dict "root" $root "component" .component) | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "vidgen.selector" (dict "root" $root "component" .component) | nindent 8 }}
      annotations:
        # Rolls the pods when the chart-written secret changes.
        checksum/secret: {{ toYaml $root.Values.secrets | sha256sum }}
    spec:
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets: {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext: {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- if eq .component "worker" }}
      # Longer than the drain: SIGTERM lets running renders finish, then hands the rest back.
      terminationGracePeriodSeconds: {{ add .spec.shutdownGraceSeconds 15 }}
      {{- end }}
      containers:
        - name: vidgen
          image: {{ include "vidgen.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: ["--role", {{ .component | quote }}]
          env:
            {{- include "vidgen.env" $root | nindent 12 }}
            {{- if eq .component "worker" }}
            - name: VIDGEN_WORKER_CONCURRENCY
              value: {{ .spec.concurrency | quote }}
            - name: VIDGEN_SHUTDOWN_GRACE_SECONDS
              value: {{ .spec.shutdownGraceSeconds | quote }}
            {{- end }}
          envFrom: {{- include "vidgen.envFrom" $root | nindent 12 }}
          ports:
            - name: http
              containerPort: 8080
              protocol: TCP
          startupProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: 10
            timeoutSeconds: 5
            failureThreshold: 3
          readinessProbe:
            httpGet: { path: /readyz, port: http }
            periodSeconds: 5
            timeoutSeconds: 5
            failureThreshold: 2
          resources: {{- toYaml .spec.resources | nindent 12 }}
          securityContext: {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts: {{- include "vidgen.volumeMounts" $root | nindent 12 }}
      volumes: {{- include "vidgen.volumes" $root | nindent 8 }}
      {{- with .spec.nodeSelector }}
      nodeSelector: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .spec.tolerations }}
      tolerations: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .spec.affinity }}
      affinity: {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}
