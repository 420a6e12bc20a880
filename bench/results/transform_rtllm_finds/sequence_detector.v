module sequence_detector(
     input  clk, 
     input  rst_n,
     input  data_in, 
     output sequence_detected				
     );
    parameter        IDLE = 5'b00001;
    parameter        S1   = 5'b00010;
    parameter 	     S2   = 5'b00100;
    parameter        S3   = 5'b01000;
    parameter        S4   = 5'b10000;
    // resynth: 5 reachable states of 6 flip-flop bits, 5 after merging; binary code
    reg [2:0] rtla_s;
    wire [0:0] rtla_v = {data_in};
    reg [0:0] rtla_o;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) rtla_s <= 3'd0;
        else case (rtla_s)
            3'd0: begin
                case (rtla_v)
                    0: rtla_s <= 3'd0;
                    1: rtla_s <= 3'd1;
                endcase
            end
            3'd1: begin
                case (rtla_v)
                    0: rtla_s <= 3'd2;
                    1: rtla_s <= 3'd1;
                endcase
            end
            3'd2: begin
                case (rtla_v)
                    0: rtla_s <= 3'd3;
                    1: rtla_s <= 3'd1;
                endcase
            end
            3'd3: begin
                case (rtla_v)
                    0: rtla_s <= 3'd0;
                    1: rtla_s <= 3'd4;
                endcase
            end
            3'd4: begin
                case (rtla_v)
                    0: rtla_s <= 3'd2;
                    1: rtla_s <= 3'd1;
                endcase
            end
            default: rtla_s <= 3'd0;
        endcase
    always @* rtla_o[0] = rtla_s[2];
    assign sequence_detected = rtla_o[0:0];
endmodule
