-- Argo CD health of a stallwatch.dev/RolloutStall
-- (resource.customizations.health.stallwatch.dev_RolloutStall): Degraded while the stall is
-- Active, with its one-line message; Healthy once Resolved; Progressing until the operator has
-- written its status.
local hs = {}
local status = obj.status
if status == nil or status.phase == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for stallwatch to write the stall's status"
  return hs
end
if status.phase == "Active" then
  hs.status = "Degraded"
  hs.message = status.message or ("Rollout stalled: " .. (status.cause or "Unknown"))
  return hs
end
hs.status = "Healthy"
hs.message = "Resolved at " .. (status.resolvedAt or "an unknown time")
return hs
