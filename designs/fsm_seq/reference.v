// Reference for fsm_seq: five-state Moore machine; S4 = "1011" just seen.
module fsm_seq (
    input  clk,
    input  rst_n,
    input  din,
    output det
);
    localparam S0 = 3'd0,  // no useful prefix
               S1 = 3'd1,  // "1"
               S2 = 3'd2,  // "10"
               S3 = 3'd3,  // "101"
               S4 = 3'd4;  // "1011"
    reg [2:0] state, next;

    always @* begin
        case (state)
            S0: next = din ? S1 : S0;
            S1: next = din ? S1 : S2;
            S2: next = din ? S3 : S0;
            S3: next = din ? S4 : S2;
            S4: next = din ? S1 : S2;
            default: next = S0;
        endcase
    end

    always @(posedge clk) begin
        if (!rst_n) state <= S0;
        else        state <= next;
    end

    assign det = (state == S4);
endmodule
