export { AdmissionGate, GateFullError } from './admission-gate';
