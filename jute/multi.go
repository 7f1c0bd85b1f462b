package jute

import (
	"fmt"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/client"
)

// A multi (14) and a multiRead (22) are a run of ops, each after a
// MultiHeader naming its type, ended by a header with Done set; their
// answers are a run of results the same way. A multi's ops are creates
// (create, create2, createTTL, createContainer), deletes, setDatas and
// checks, applied all or none; a multiRead's are getData and the first
// getChildren, each answered on its own.

// MultiHeader is a multi's header before each op and each result, and the
// closing one (Type -1, Done, Err -1). Before an op Err is -1; before a
// result it is the result's code (CodeOK, or a failed op's).
type MultiHeader struct {
	Type client.Op
	Done bool
	Err  zk.ErrCode
}

func (h *MultiHeader) encode(e *encoder) {
	e.int(int32(h.Type))
	e.bool(h.Done)
	e.int(int32(h.Err))
}

func (h *MultiHeader) decode(d *decoder) {
	t := d.int()
	h.Done, h.Err = d.bool(), zk.ErrCode(d.int())
	if t != int32(client.Op(t)) {
		d.fail(ErrMalformed, fmt.Sprintf("a multi's opcode %d", t))
	}
	h.Type = client.Op(t)
}

// closing is the header that ends a multi's ops and its results.
var closing = MultiHeader{Type: -1, Done: true, Err: -1}

// MultiOp is one op of a multi or a multiRead: its type and its request.
type MultiOp struct {
	Type    client.Op
	Request Record
}

// MultiRequest is a multi's or a multiRead's body. Each op's header goes
// out with Err -1, as both clients write it; the server reads only its
// type and Done.
type MultiRequest struct{ Ops []MultiOp }

func (r *MultiRequest) encode(e *encoder) {
	for _, op := range r.Ops {
		h := MultiHeader{Type: op.Type, Err: -1}
		h.encode(e)
		if op.Request != nil {
			op.Request.encode(e)
		}
	}
	closing.encode(e)
}

// decode reads ops up to the closing header: an op of a type no multi
// carries is ErrMalformed (the server answers the multi
// CodeMarshallingError).
func (r *MultiRequest) decode(d *decoder) {
	r.Ops = nil
	for d.err == nil {
		var h MultiHeader
		h.decode(d)
		if h.Done || d.err != nil {
			return
		}
		req := multiOpRequest(h.Type)
		if req == nil {
			d.fail(ErrMalformed, fmt.Sprintf("a multi's op of type %s", OpName(h.Type)))
			return
		}
		req.decode(d)
		r.Ops = append(r.Ops, MultiOp{Type: h.Type, Request: req})
	}
}

// multiOpRequest is a new request of a multi's op type, nil for a type no
// multi or multiRead carries.
func multiOpRequest(t client.Op) Record {
	switch t {
	case client.OpCreate, client.OpCreate2, client.OpCreateContainer:
		return new(CreateRequest)
	case client.OpCreateTTL:
		return new(CreateTTLRequest)
	case client.OpDelete:
		return new(DeleteRequest)
	case client.OpSetData:
		return new(SetDataRequest)
	case client.OpCheck:
		return new(CheckVersionRequest)
	case client.OpGetData:
		return new(GetDataRequest)
	case OpGetChildrenV1:
		return new(GetChildrenRequest)
	}
	return nil
}

// MultiResult is one result of a multi's or a multiRead's answer: its
// type and, for the types that have one, its body. Type is the op's (a
// create's: create, or create2 for the other creates, with the Stat), or
// OpError with an *ErrorResponse: in a multi that failed, every op's (the
// op that failed has its code, those before it CodeOK, those after it
// CodeRuntimeInconsistency); in a multiRead, the op that failed.
type MultiResult struct {
	Type     client.Op
	Response Record // nil for a delete's and a check's
}

// MultiResponse is the body of a multi's or a multiRead's answer.
type MultiResponse struct{ Results []MultiResult }

func (r *MultiResponse) encode(e *encoder) {
	for _, res := range r.Results {
		h := MultiHeader{Type: res.Type}
		if er, ok := res.Response.(*ErrorResponse); ok {
			h.Err = er.Err
		}
		h.encode(e)
		if res.Response != nil {
			res.Response.encode(e)
		}
	}
	closing.encode(e)
}

func (r *MultiResponse) decode(d *decoder) {
	r.Results = nil
	for d.err == nil {
		var h MultiHeader
		h.decode(d)
		if h.Done || d.err != nil {
			return
		}
		res, known := multiResult(h.Type)
		if !known {
			d.fail(ErrMalformed, fmt.Sprintf("a multi's result of type %s", OpName(h.Type)))
			return
		}
		if res != nil {
			res.decode(d)
		}
		r.Results = append(r.Results, MultiResult{Type: h.Type, Response: res})
	}
}

// multiResult is a new body for a result of type t (nil for a delete's
// and a check's, which have none), and whether t is a result's type.
func multiResult(t client.Op) (Record, bool) {
	switch t {
	case client.OpCreate:
		return new(CreateResponse), true
	case client.OpCreate2:
		return new(Create2Response), true
	case client.OpDelete, client.OpCheck:
		return nil, true
	case client.OpSetData:
		return new(SetDataResponse), true
	case client.OpGetData:
		return new(GetDataResponse), true
	case OpGetChildrenV1:
		return new(GetChildrenResponse), true
	case OpError:
		return new(ErrorResponse), true
	}
	return nil, false
}
