{{/*
The one template every Marquee service is rendered from.
Call: {{ include "marquee.service" (dict "root" $ "name" "cart") }}
Renders ServiceAccount, ConfigMap, Deployment, Service, HorizontalPodAutoscaler,
PodDisruptionBudget and (when networkPolicy.enabled) NetworkPolicy.
*/}}
{{- define "marquee.service" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $ctx := dict "root" $root "name" $name -}}
{{- $s := include "marquee.svcValues" $ctx | fromJson -}}
{{- $full := include "marquee.svcFullname" $ctx -}}
{{- $g := $root.Values.global -}}
{{- $httpPort := $s.ports.http | int -}}
{{- $grpcPort := $s.ports.grpc | int -}}
{{- $metricsPort := $root.Values.metrics.port | int -}}
{{- /* ---------- configuration (non-secret) ---------- */ -}}
{{- $cfg := dict
      "SERVICE_NAME" $name
      "NODE_ENV" "production"
      "LOG_LEVEL" (toString $g.logLevel)
      "HOST" "0.0.0.0"
      "HTTP_PORT" (toString $httpPort)
      "GRPC_PORT" (toString $grpcPort)
      "METRICS_PORT" (toString $metricsPort)
      "KAFKA_BROKERS" (required "global.kafkaBrokers is required" $g.kafkaBrokers | toString) -}}
{{- /* Secret keys mounted as files: the service's own list, plus MONGO_URL when it has a database
     (the URL may hold credentials: it lives in the Secret, the database name in MONGO_DB). */ -}}
{{- $secretFiles := $s.secretFiles | default list -}}
{{- $db := $s.mongo.database | default (printf "marquee-%s" $name) -}}
{{- if ne $db "-" -}}
{{- $_ := set $cfg "MONGO_DB" ($db | replace "-" "_") -}}
{{- $secretFiles = append $secretFiles "MONGO_URL" -}}
{{- end -}}
{{- $secretFiles = $secretFiles | uniq -}}
{{- if $s.externalIngress -}}
{{- $cidrs := $root.Values.clientAddress.trustedProxyCidrs | default list -}}
{{- $_ := set $cfg "TRUSTED_PROXIES" (ternary (join "," $cidrs) "none" (gt (len $cidrs) 0)) -}}
{{- end -}}
{{- /* The services it calls: its ServiceDefinition's `calls` (files/calls.yaml), values' extras. */ -}}
{{- range $callee := include "marquee.calls" $ctx | fromJsonArray -}}
{{- $cs := include "marquee.svcValues" (dict "root" $root "name" $callee) | fromJson -}}
{{- $cfull := include "marquee.svcFullname" (dict "root" $root "name" $callee) -}}
{{- /* gRPC through the callee's headless Service: every ready pod's address, round-robin. */ -}}
{{- $_ := set $cfg (include "marquee.grpcAddrVar" $callee) (printf "dns:///%s-grpc.%s.svc.%s:%d" $cfull $root.Release.Namespace ($root.Values.global.clusterDomain | default "cluster.local") ($cs.ports.grpc | int)) -}}
{{- $_ := set $cfg (printf "HTTP_URL_%s" ($callee | upper | replace "-" "_")) (printf "http://%s:%d" $cfull ($cs.ports.http | int)) -}}
{{- end -}}
{{- /* V8 options: the service's package.json `marquee.v8.nodeOptions`, generated into
     files/node-options.yaml by scripts/generate-node-options.ts. Values' env may still set it. */ -}}
{{- $nodeOptions := $root.Files.Get "files/node-options.yaml" | fromYaml -}}
{{- with get $nodeOptions $name -}}{{- $_ := set $cfg "NODE_OPTIONS" (toString .) -}}{{- end -}}
{{- /* The connector refuses internal partner hosts unless listed: the in-cluster partners it is
     given through `calls` (partner-reference) are listed by their Service name, plus the values'
     `partnerAllowedHosts`. */ -}}
{{- if $s.partnerEgress -}}
{{- $allowed := list -}}
{{- range $callee := include "marquee.calls" $ctx | fromJsonArray -}}
{{- $allowed = append $allowed (include "marquee.svcFullname" (dict "root" $root "name" $callee)) -}}
{{- end -}}
{{- $allowed = concat $allowed ($s.partnerAllowedHosts | default list) -}}
{{- $_ := set $cfg "PARTNER_ALLOWED_HOSTS" (join "," $allowed) -}}
{{- end -}}
{{- /* Kafka login (values kafkaAuth): the services of files/kafka-acls.json, as their own user. */ -}}
{{- $kafkaAuth := include "marquee.kafkaAuth" $ctx | fromJson -}}
{{- if $kafkaAuth.enabled -}}
{{- $_ := set $cfg "KAFKA_SASL_MECHANISM" $kafkaAuth.mechanism -}}
{{- $_ := set $cfg "KAFKA_SASL_USERNAME" $name -}}
{{- $_ := set $cfg "KAFKA_SSL" (toString $kafkaAuth.tls) -}}
{{- end -}}
{{- /* Extra volumes and mounts: the global ones, then the service's; the chart's names are taken. */ -}}
{{- $extraVolumes := concat ($g.extraVolumes | default list) ($s.extraVolumes | default list) -}}
{{- $extraMounts := concat ($g.extraVolumeMounts | default list) ($s.extraVolumeMounts | default list) -}}
{{- $volumeNames := dict "tmp" true "secrets" true "kafka-auth" true -}}
{{- range $v := $extraVolumes -}}
{{- if hasKey $volumeNames $v.name -}}{{- fail (printf "%s: extra volume %q: the name is taken (the chart's volumes: tmp, secrets, kafka-auth; or listed twice)" $name $v.name) -}}{{- end -}}
{{- $_ := set $volumeNames $v.name true -}}
{{- end -}}
{{- range $m := $extraMounts -}}
{{- if not (hasKey $volumeNames $m.name) -}}{{- fail (printf "%s: extra volume mount %q names no volume of the pod" $name $m.name) -}}{{- end -}}
{{- end -}}
{{- range $k, $v := $g.env -}}{{- $_ := set $cfg $k (toString $v) -}}{{- end -}}
{{- range $k, $v := $s.env -}}{{- $_ := set $cfg $k (toString $v) -}}{{- end -}}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
automountServiceAccountToken: false
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
data:
  {{- range $k := keys $cfg | sortAlpha }}
  {{ $k }}: {{ get $cfg $k | quote }}
  {{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
    app.kubernetes.io/component: {{ $name }}
spec:
  {{- if not $s.hpa.enabled }}
  replicas: {{ $s.replicas | int }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "marquee.selectorLabels" $ctx | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "marquee.commonLabels" $root | nindent 8 }}
        {{- include "marquee.selectorLabels" $ctx | nindent 8 }}
        app.kubernetes.io/component: {{ $name }}
        {{- with $g.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ toJson $cfg | sha256sum }}
        {{- if not $root.Values.secrets.existingSecret }}
        checksum/secrets: {{ toJson $root.Values.secrets | sha256sum }}
        {{- end }}
        {{- with (merge (deepCopy ($s.podAnnotations | default dict)) ($g.podAnnotations | default dict)) }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ $full }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ $s.terminationGracePeriodSeconds | int }}
      {{- with $g.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: {{ $s.securityContext.runAsUser | int64 }}
        runAsGroup: {{ $s.securityContext.runAsGroup | int64 }}
        fsGroup: {{ $s.securityContext.fsGroup | int64 }}
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: {{ $name }}
          image: {{ include "marquee.image" (dict "root" $root "image" $s.image "default" (printf "marquee/%s" $name)) | quote }}
          imagePullPolicy: {{ $s.image.pullPolicy }}
          {{- with $s.command }}
          command:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with $s.args }}
          args:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          ports:
            - name: http
              containerPort: {{ $httpPort }}
              protocol: TCP
            - name: grpc
              containerPort: {{ $grpcPort }}
              protocol: TCP
            - name: metrics
              containerPort: {{ $metricsPort }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ $full }}
            {{- if $s.secretEnv }}
            - secretRef:
                name: {{ include "marquee.secretName" $root }}
            {{- end }}
          env:
            {{- range $key := $secretFiles }}
            - name: {{ $key }}_FILE
              value: /var/run/secrets/marquee/{{ $key }}
            {{- end }}
            {{- if $kafkaAuth.enabled }}
            - name: KAFKA_SASL_PASSWORD_FILE
              value: /var/run/secrets/kafka/password
            {{- if $kafkaAuth.caKey }}
            - name: KAFKA_SSL_CA_FILE
              value: /var/run/secrets/kafka/ca.crt
            {{- end }}
            {{- end }}
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: OTEL_RESOURCE_ATTRIBUTES
              value: "service.name={{ $name }},service.namespace=marquee,k8s.pod.name=$(POD_NAME)"
          {{- if $s.grpcProbe }}
          startupProbe:
            grpc:
              port: {{ $grpcPort }}
            periodSeconds: {{ $s.probes.startup.periodSeconds | int }}
            timeoutSeconds: {{ $s.probes.startup.timeoutSeconds | int }}
            failureThreshold: {{ $s.probes.startup.failureThreshold | int }}
          {{- else }}
          startupProbe:
            httpGet:
              path: {{ $s.probes.liveness.path }}
              port: http
            periodSeconds: {{ $s.probes.startup.periodSeconds | int }}
            timeoutSeconds: {{ $s.probes.startup.timeoutSeconds | int }}
            failureThreshold: {{ $s.probes.startup.failureThreshold | int }}
          {{- end }}
          livenessProbe:
            httpGet:
              path: {{ $s.probes.liveness.path }}
              port: http
            periodSeconds: {{ $s.probes.liveness.periodSeconds | int }}
            timeoutSeconds: {{ $s.probes.liveness.timeoutSeconds | int }}
            failureThreshold: {{ $s.probes.liveness.failureThreshold | int }}
          readinessProbe:
            httpGet:
              path: {{ $s.probes.readiness.path }}
              port: http
            periodSeconds: {{ $s.probes.readiness.periodSeconds | int }}
            timeoutSeconds: {{ $s.probes.readiness.timeoutSeconds | int }}
            failureThreshold: {{ $s.probes.readiness.failureThreshold | int }}
          {{- if gt ($s.preStopSleepSeconds | int) 0 }}
          lifecycle:
            preStop:
              sleep:
                seconds: {{ $s.preStopSleepSeconds | int }}
          {{- end }}
          resources:
            {{- toYaml $s.resources | nindent 12 }}
          securityContext:
            {{- include "marquee.containerSecurityContext" $s.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $secretFiles }}
            - name: secrets
              mountPath: /var/run/secrets/marquee
              readOnly: true
            {{- end }}
            {{- if $kafkaAuth.enabled }}
            - name: kafka-auth
              mountPath: /var/run/secrets/kafka
              readOnly: true
            {{- end }}
            {{- with $extraMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            medium: Memory
            sizeLimit: {{ $s.tmpSizeLimit }}
        {{- if $secretFiles }}
        # Only the keys this service uses, read-only for its group (fsGroup); a key missing from
        # the Secret keeps the pod from starting rather than starting it without.
        - name: secrets
          secret:
            secretName: {{ include "marquee.secretName" $root }}
            defaultMode: 0440
            items:
              {{- range $key := $secretFiles }}
              - key: {{ get ($root.Values.secrets.existingSecretKeys | default dict) $key | default $key }}
                path: {{ $key }}
              {{- end }}
        {{- end }}
        {{- if $kafkaAuth.enabled }}
        # This service's Kafka password (and the brokers' CA), nothing of the other services'.
        - name: kafka-auth
          secret:
            secretName: {{ $kafkaAuth.secret }}
            defaultMode: 0440
            items:
              - key: {{ $name }}.password
                path: password
              {{- if $kafkaAuth.caKey }}
              - key: {{ $kafkaAuth.caKey }}
                path: ca.crt
              {{- end }}
        {{- end }}
        {{- with $extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- if $g.topologySpread }}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "marquee.selectorLabels" $ctx | nindent 14 }}
      {{- end }}
      {{- with $s.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $s.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $s.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: http
      port: {{ $httpPort }}
      targetPort: http
      protocol: TCP
      appProtocol: http
    - name: grpc
      port: {{ $grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
    - name: metrics
      port: {{ $metricsPort }}
      targetPort: metrics
      protocol: TCP
      appProtocol: http
---
# Headless: the name resolves to every ready pod, so gRPC clients (round_robin) spread their calls
# over all replicas instead of pinning one connection to one ClusterIP backend. Servers close
# connections after GRPC_MAX_CONNECTION_AGE_MS so clients re-resolve and find new replicas.
apiVersion: v1
kind: Service
metadata:
  name: {{ $full }}-grpc
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: grpc
      port: {{ $grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
{{- if $s.hpa.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $full }}
  minReplicas: {{ $s.hpa.minReplicas | int }}
  maxReplicas: {{ $s.hpa.maxReplicas | int }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $s.hpa.targetCPUUtilizationPercentage | int }}
    {{- if gt ($s.hpa.targetMemoryUtilizationPercentage | int) 0 }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ $s.hpa.targetMemoryUtilizationPercentage | int }}
    {{- end }}
  behavior:
    scaleDown:
      # consumer-group rebalances are costly: scale down slowly
      stabilizationWindowSeconds: 300
      policies:
        - type: Pods
          value: 1
          periodSeconds: 60
{{- end }}
{{- if $s.pdb.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
spec:
  {{- if hasKey $s.pdb "minAvailable" }}
  minAvailable: {{ $s.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $s.pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "marquee.selectorLabels" $ctx | nindent 6 }}
{{- end }}
{{- if $root.Values.networkPolicy.enabled }}
{{- $callers := list -}}
{{- range $other, $_ := $root.Values.services -}}
{{- $os := include "marquee.svcValues" (dict "root" $root "name" $other) | fromJson -}}
{{- if and $os.enabled (has $name (include "marquee.calls" (dict "root" $root "name" $other) | fromJsonArray)) -}}
{{- $callers = append $callers $other -}}
{{- end -}}
{{- end }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ $full }}
  labels:
    {{- include "marquee.commonLabels" $root | nindent 4 }}
    {{- include "marquee.selectorLabels" $ctx | nindent 4 }}
  annotations:
    marquee.io/callers: {{ join "," (sortAlpha $callers) | quote }}
spec:
  podSelector:
    matchLabels:
      {{- include "marquee.selectorLabels" $ctx | nindent 6 }}
  {{- $egress := $root.Values.networkPolicy.egress }}
  policyTypes: [Ingress{{ if $egress.enabled }}, Egress{{ end }}]
  ingress:
    {{- if $s.externalIngress }}
    {{- $from := $root.Values.networkPolicy.externalFrom | default list }}
    {{- $cidrs := $root.Values.clientAddress.trustedProxyCidrs | default list }}
    {{- if and (empty $from) (empty $cidrs) }}
    {{- fail (printf "networkPolicy.externalFrom or clientAddress.trustedProxyCidrs must say where external traffic to %s comes from (the ingress controller)" $name) }}
    {{- end }}
    # external clients, through the ingress controller or load balancer only, on the HTTP port only
    - from:
        {{- with $from }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- range $cidr := $cidrs }}
        - ipBlock:
            cidr: {{ ternary $cidr (printf "%s/%s" $cidr (ternary "128" "32" (contains ":" $cidr))) (contains "/" $cidr) }}
        {{- end }}
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- range $caller := sortAlpha $callers }}
    - from:
        - podSelector:
            matchLabels:
              {{- include "marquee.selectorLabels" (dict "root" $root "name" $caller) | nindent 14 }}
      ports:
        - port: http
          protocol: TCP
        - port: grpc
          protocol: TCP
    {{- end }}
    {{- with $root.Values.metrics.scrapeFrom }}
    # Prometheus, on the metrics port only
    - from:
        {{- toYaml . | nindent 8 }}
      ports:
        - port: metrics
          protocol: TCP
    {{- end }}
    {{- with $root.Values.networkPolicy.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- if $egress.enabled }}
  {{- /* Where an unlisted peer list leaves a port open: every address but link-local (the cloud
       metadata endpoint). Narrow it with the `to` of the values. */ -}}
  {{- $anywhere := list (dict "ipBlock" (dict "cidr" "0.0.0.0/0" "except" (list "169.254.0.0/16"))) (dict "ipBlock" (dict "cidr" "::/0" "except" (list "fe80::/10"))) }}
  egress:
    # name resolution
    - to:
        {{- toYaml $egress.dns.to | nindent 8 }}
      ports:
        {{- toYaml $egress.dns.ports | nindent 8 }}
    # Kafka brokers
    - to:
        {{- toYaml ($egress.kafka.to | default $anywhere) | nindent 8 }}
      ports:
        {{- toYaml $egress.kafka.ports | nindent 8 }}
    {{- if ne $db "-" }}
    # MongoDB
    - to:
        {{- toYaml ($egress.mongo.to | default $anywhere) | nindent 8 }}
      ports:
        {{- toYaml $egress.mongo.ports | nindent 8 }}
    {{- end }}
    {{- if $egress.otlp.enabled }}
    # OpenTelemetry collector
    - to:
        {{- toYaml ($egress.otlp.to | default $anywhere) | nindent 8 }}
      ports:
        {{- toYaml $egress.otlp.ports | nindent 8 }}
    {{- end }}
    {{- range $callee := include "marquee.calls" $ctx | fromJsonArray }}
    # {{ $callee }} (called)
    - to:
        - podSelector:
            matchLabels:
              {{- include "marquee.selectorLabels" (dict "root" $root "name" $callee) | nindent 14 }}
      ports:
        {{- $cs := include "marquee.svcValues" (dict "root" $root "name" $callee) | fromJson }}
        - port: {{ $cs.ports.http | int }}
          protocol: TCP
        - port: {{ $cs.ports.grpc | int }}
          protocol: TCP
    {{- end }}
    {{- if and $s.partnerEgress $egress.partners.cidrs }}
    # partner systems (their 3P API and token endpoint), nothing else outside the cluster
    - to:
        {{- range $cidr := $egress.partners.cidrs }}
        - ipBlock:
            cidr: {{ ternary $cidr (printf "%s/%s" $cidr (ternary "128" "32" (contains ":" $cidr))) (contains "/" $cidr) }}
        {{- end }}
      ports:
        {{- toYaml $egress.partners.ports | nindent 8 }}
    {{- end }}
    {{- if and $s.stripeEgress $egress.stripe.cidrs }}
    # the Stripe API (or the egress proxy in front of it)
    - to:
        {{- range $cidr := $egress.stripe.cidrs }}
        - ipBlock:
            cidr: {{ ternary $cidr (printf "%s/%s" $cidr (ternary "128" "32" (contains ":" $cidr))) (contains "/" $cidr) }}
        {{- end }}
      ports:
        {{- toYaml $egress.stripe.ports | nindent 8 }}
    {{- end }}
    {{- with $egress.extra }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end }}
{{- end -}}
