package serving

import (
	"encoding/json"
	"strconv"
)

// The JSON of TensorFlow Serving's model status and metadata APIs
// (GetModelStatusResponse and GetModelMetadataResponse with a
// SignatureDefMap), so that clients written for it read kerasgo's.
type (
	statusResponse struct {
		ModelVersionStatus []versionStatus `json:"model_version_status"`
	}
	versionStatus struct {
		Version string `json:"version"`
		State   string `json:"state"`
		Status  struct {
			ErrorCode    string `json:"error_code"`
			ErrorMessage string `json:"error_message"`
		} `json:"status"`
	}
	metadataResponse struct {
		ModelSpec struct {
			Name          string `json:"name"`
			SignatureName string `json:"signature_name"`
			Version       string `json:"version"`
		} `json:"model_spec"`
		Metadata struct {
			SignatureDef struct {
				SignatureDef map[string]signatureDef `json:"signature_def"`
			} `json:"signature_def"`
		} `json:"metadata"`
	}
	signatureDef struct {
		Inputs     map[string]tensorInfo `json:"inputs"`
		Outputs    map[string]tensorInfo `json:"outputs"`
		MethodName string                `json:"method_name"`
	}
	tensorInfo struct {
		DType       string `json:"dtype"`
		TensorShape struct {
			Dim         []dim `json:"dim"`
			UnknownRank bool  `json:"unknown_rank"`
		} `json:"tensor_shape"`
		Name string `json:"name"`
	}
	dim struct {
		Size string `json:"size"`
		Name string `json:"name"`
	}
)

// appendStatus writes /v1/models/<name>: the versions serving, each
// AVAILABLE.
func appendStatus(b []byte, svs ...*servable) []byte {
	var r statusResponse
	for _, sv := range svs {
		v := versionStatus{Version: strconv.Itoa(sv.version), State: "AVAILABLE"}
		v.Status.ErrorCode = "OK"
		r.ModelVersionStatus = append(r.ModelVersionStatus, v)
	}
	out, _ := json.Marshal(r)
	return append(b, out...)
}

// appendMetadata writes /v1/models/<name>/metadata: the serving_default
// signature with one entry per input and output, named as the model's
// input and output layers are, -1 for the batch and for dimensions of any
// length.
func appendMetadata(b []byte, name string, sv *servable) []byte {
	var r metadataResponse
	r.ModelSpec.Name, r.ModelSpec.Version = name, strconv.Itoa(sv.version)
	sig := signatureDef{Inputs: map[string]tensorInfo{}, Outputs: map[string]tensorInfo{}, MethodName: "tensorflow/serving/predict"}
	for _, s := range sv.inputs {
		sig.Inputs[s.name] = infoOf(s, "serving_default_"+s.name+":0")
	}
	for i, s := range sv.outputs {
		sig.Outputs[s.name] = infoOf(s, "StatefulPartitionedCall:"+strconv.Itoa(i))
	}
	r.Metadata.SignatureDef.SignatureDef = map[string]signatureDef{defaultSignature: sig}
	out, _ := json.Marshal(r)
	return append(b, out...)
}

func infoOf(s tensorSpec, tensorName string) tensorInfo {
	t := tensorInfo{DType: s.dtype(), Name: tensorName}
	t.TensorShape.Dim = []dim{{Size: "-1"}}
	for _, d := range s.shape {
		t.TensorShape.Dim = append(t.TensorShape.Dim, dim{Size: strconv.Itoa(d)})
	}
	return t
}

// appendJSONString writes s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	out, _ := json.Marshal(s)
	return append(b, out...)
}
